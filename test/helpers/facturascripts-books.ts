import { calculateDocument, storedTax } from '../../src/modules/documents/calculation/calculate.ts';
import type { CalcContext, CalcLine } from '../../src/modules/documents/calculation/types.ts';
import { quote, type SourceConnection } from './facturascripts-source.ts';

/**
 * Books of a company as the established system keeps them, written into a source database
 * (facturascripts-source.ts) the way that system writes them: its default data (company,
 * warehouse, series, taxes, payment methods, statuses, settings, a chart per year), customers,
 * suppliers, products with stock, two years of sales and purchase invoices with their lines,
 * receipts, payments and entries, delivery notes turned into invoices, API keys with rules, users,
 * files, queued work. Totals are the system's (per VAT group, rounded, then summed: the
 * calculation core's pure function). And what real installations hold that a clean one does not
 * (`BooksFacts` names each): a numbering gap in a serie that fills gaps, a sequence whose
 * counter lags its numbers, codes not zero-padded, a credit note without status whose `pagada`
 * lags its paid receipt, a cash payment posted to the bank, sub-account balances the background
 * queue has not brought up to date, unprocessed work events, a bank account whose IBAN today's
 * rules refuse, an invoice whose stored totals a cent off, a plugin's table and an old column.
 * Deterministic: the same scale gives the same books.
 */

export interface BooksScale {
  customers: number;
  suppliers: number;
  products: number;
  /** Sales invoices per year (2025 and 2026). */
  salesPerYear: number;
  purchasesPerYear: number;
  deliveryNotes: number;
  /** Lines per invoice: 1 to this. */
  maxLines: number;
  /** Every invoice with exactly this many lines (a benchmark's books). */
  lines?: number;
}

export const SMALL_BOOKS: BooksScale = { customers: 12, suppliers: 4, products: 8, salesPerYear: 30, purchasesPerYear: 8, deliveryNotes: 4, maxLines: 4 };

/** What the books hold that a test checks after an import. */
export interface BooksFacts {
  /** The tokens of the source's API keys, by id: full access (1), rules (2), disabled (3). */
  tokens: Record<number, string>;
  /** Serie A 2026 (customer invoices, gaps filled): the number missing, and the date of the invoice after it. */
  gap: { numero: number; fecha: string };
  /** Serie A 2025's sequence lags its numbers: the next number is the highest + 1. */
  next2025: number;
  /** The credit note without status. */
  creditNote: { idfactura: number; codigo: string };
  /** The invoice whose stored totals are a cent off what the calculation gives. */
  centOff: { idfactura: number; codigo: string };
  /** The sub-account whose stored balance the queue left behind: what its entry lines sum to. */
  stale: { codsubcuenta: string; codejercicio: string; debe: number; haber: number };
  /** The customer whose bank account has an IBAN that does not check. */
  badIban: { codcliente: string; codcuenta: string };
  unprocessedEvents: number;
  /** The plugin table and its rows; the old column of `clientes`. */
  pluginTable: { name: string; rows: number };
  oldColumn: { table: string; column: string };
  /** The quarter of 2025 the system itself settled and locked (a `regularizacionimpuestos` row). */
  settledQuarter: string;
  /** Per table, the rows written. */
  rows: Record<string, number>;
  files: Array<{ idfile: number; path: string; content: string }>;
}

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NIF_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
const nif = (n: number) => `${String(n).padStart(8, '0')}${NIF_LETTERS[n % 23]}`;
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const day = (year: number, index: number, count: number) => {
  const start = Date.UTC(year, 0, 2);
  const span = Date.UTC(year, 11, 28) - start;
  return new Date(start + Math.floor((span * index) / Math.max(1, count))).toISOString().slice(0, 10);
};
const round2 = (value: number) => Math.round(value * 100) / 100;

type Row = Record<string, unknown>;

/** The reference data's tables, parents first: written before any document. */
const REFERENCE_ORDER = ['empresas', 'paises', 'divisas', 'almacenes', 'series', 'ejercicios', 'formaspago', 'impuestos', 'retenciones', 'estados_documentos', 'settings', 'users', 'api_keys', 'api_access',
  'cuentasesp', 'cuentas', 'subcuentas', 'contactos', 'clientes', 'cuentasbcocli', 'proveedores', 'productos', 'variantes', 'stocks'];

const TAXES = [
  { codimpuesto: 'IVA21', iva: 21, recargo: 5.2 },
  { codimpuesto: 'IVA10', iva: 10, recargo: 1.4 },
  { codimpuesto: 'IVA4', iva: 4, recargo: 0.5 },
];

export async function fillBooks(connection: SourceConnection, scale: BooksScale = SMALL_BOOKS): Promise<BooksFacts> {
  const mysql = connection.engine === 'mysql';
  const b = (value: boolean) => (mysql ? (value ? 1 : 0) : value);
  const rand = random(26);
  // Rows wait here until their table is written (`flush`): reference data at once, documents with
  // their entries a few hundred at a time, so that books of any size never sit in memory whole.
  const tables = new Map<string, Row[]>();
  const written: Record<string, number> = {};
  const add = (table: string, row: Row) => {
    let rows = tables.get(table);
    if (!rows) tables.set(table, (rows = []));
    rows.push(row);
    return row;
  };
  // Customers name their contacts, contacts their customers: contacts go first without it, then get it.
  const contactCustomers: Array<[unknown, unknown]> = [];
  const flush = async (names: readonly string[]) => {
    for (const name of names) {
      const rows = tables.get(name) ?? [];
      if (!rows.length) continue;
      tables.set(name, []);
      if (name === 'contactos') for (const row of rows) contactCustomers.push([row.codcliente, row.idcontacto]);
      await connection.insert(name, name === 'contactos' ? rows.map((row) => ({ ...row, codcliente: null })) : rows);
      written[name] = (written[name] ?? 0) + rows.length;
    }
  };
  const DOCUMENTS = ['asientos', 'partidas', 'facturascli', 'lineasfacturascli', 'recibospagoscli', 'pagoscli', 'facturasprov', 'lineasfacturasprov', 'recibospagosprov', 'pagosprov'];
  const years = [2025, 2026];

  // --- Default data, as an installation configured for a Spanish company keeps it.
  add('empresas', { idempresa: 1, nombre: 'Comercial Levante SL', nombrecorto: 'Levante', cifnif: 'B12345674', codpais: 'ESP', regimeniva: 'General', personafisica: b(false), fechaalta: '2020-01-01', tipoidfiscal: 'CIF', direccion: 'Calle Mayor 1', ciudad: 'Valencia', provincia: 'Valencia', codpostal: '46001', email: 'admin@levante.example' });
  for (const [codpais, codiso, nombre] of [['ESP', 'ES', 'España'], ['FRA', 'FR', 'Francia'], ['PRT', 'PT', 'Portugal'], ['USA', 'US', 'Estados Unidos']]) add('paises', { codpais, codiso, nombre });
  add('divisas', { coddivisa: 'EUR', codiso: '978', descripcion: 'Euros', simbolo: '€', tasaconv: 1, tasaconvcompra: 1 });
  add('divisas', { coddivisa: 'USD', codiso: '840', descripcion: 'Dólares', simbolo: '$', tasaconv: 1.08, tasaconvcompra: 1.08 });
  add('almacenes', { codalmacen: 'ALG', nombre: 'Almacén general', idempresa: 1, codpais: 'ESP', activo: b(true) });
  add('series', { codserie: 'A', descripcion: 'Serie A', siniva: b(false), tipo: null });
  add('series', { codserie: 'R', descripcion: 'Rectificativas', siniva: b(false), tipo: 'R' });
  for (const year of years) add('ejercicios', { codejercicio: String(year), nombre: String(year), fechainicio: `${year}-01-01`, fechafin: `${year}-12-31`, estado: 'ABIERTO', idempresa: 1, longsubcuenta: 10 });
  add('formaspago', { codpago: 'CONT', descripcion: 'Al contado', pagado: b(true), plazovencimiento: 0, tipovencimiento: 'days', idempresa: 1, activa: b(true), domiciliado: b(false), imprimir: b(true) });
  add('formaspago', { codpago: 'TRANS', descripcion: 'Transferencia', pagado: b(false), plazovencimiento: 30, tipovencimiento: 'days', idempresa: 1, activa: b(true), domiciliado: b(false), imprimir: b(true) });
  for (const tax of [...TAXES, { codimpuesto: 'IVA0', iva: 0, recargo: 0 }]) add('impuestos', { ...tax, descripcion: `IVA ${tax.iva}%`, tipo: 1, activo: b(true) });
  add('retenciones', { codretencion: 'IRPF15', descripcion: 'IRPF 15%', porcentaje: 15, activa: b(true) });
  const statuses: Record<string, { open: number; closed: number }> = {};
  let idestado = 0;
  for (const [tipodoc, stock] of [['PresupuestoCliente', 0], ['PedidoCliente', -2], ['AlbaranCliente', -1], ['FacturaCliente', -1], ['PresupuestoProveedor', 0], ['PedidoProveedor', 2], ['AlbaranProveedor', 1], ['FacturaProveedor', 1]] as const) {
    const open = ++idestado;
    add('estados_documentos', { idestado: open, tipodoc, nombre: 'Pendiente', editable: b(true), predeterminado: b(true), activo: b(true), actualizastock: stock, bloquear: b(false) });
    const closed = ++idestado;
    add('estados_documentos', { idestado: closed, tipodoc, nombre: tipodoc.startsWith('Factura') ? 'Emitida' : 'Aprobado', editable: b(false), predeterminado: b(false), activo: b(true), actualizastock: stock, bloquear: b(false) });
    statuses[tipodoc] = { open, closed };
  }
  add('settings', { name: 'default', properties: JSON.stringify({ idempresa: 1, codalmacen: 'ALG', coddivisa: 'EUR', codimpuesto: 'IVA21', codpago: 'CONT', codserie: 'A', codserierec: 'R', codretencion: 'IRPF15', codpais: 'ESP', tipoidfiscal: 'CIF', regimeniva: 'General', decimals: 2, enable_api: false, ventasinstock: true }) });
  add('settings', { name: 'email', properties: JSON.stringify({ host: 'smtp.levante.example', port: 587, user: 'admin', password: 'secreto' }) });
  add('users', { nick: 'admin', password: '$2y$10$0pE0wqQ9S8m5mJdC3zq8FeJg1I7kQXc4Wm9jT2cYb1wKQvX2yq3Ge', admin: b(true), enabled: b(true), level: 99, email: 'admin@levante.example', idempresa: 1, codalmacen: 'ALG', langcode: 'es_ES', logkey: 'a1b2c3d4e5', creationdate: '2020-01-01', two_factor_enabled: b(false) });
  add('users', { nick: 'ventas', password: '$2y$10$Zk0pWcX9q8S7mJdC3zq8FeJg1I7kQXc4Wm9jT2cYb1wKQvX2yq3Ge', admin: b(false), enabled: b(true), level: 2, email: 'ventas@levante.example', idempresa: 1, codalmacen: 'ALG', langcode: 'es_ES', creationdate: '2021-03-01', two_factor_enabled: b(true), two_factor_secret_key: 'JBSWY3DPEHPK3PXP' });
  const tokens = { 1: 'Fs7kQ2mW9xL4pR8vT1nZ', 2: 'Rb3Yc6Hd8Jf1Kg5Lm2Np', 3: 'Dx9Qw4Er7Ty2Ui5Op8As' };
  add('api_keys', { id: 1, apikey: tokens[1], description: 'Tienda online', enabled: b(true), fullaccess: b(true), creationdate: '2024-05-10', nick: 'admin' });
  add('api_keys', { id: 2, apikey: tokens[2], description: 'Integración CRM', enabled: b(true), fullaccess: b(false), creationdate: '2024-06-01', nick: null });
  add('api_keys', { id: 3, apikey: tokens[3], description: 'Antigua', enabled: b(false), fullaccess: b(true), creationdate: '2022-01-01', nick: null });
  add('api_access', { id: 1, idapikey: 2, resource: 'clientes', allowget: b(true), allowpost: b(true), allowput: b(false), allowdelete: b(false) });
  add('api_access', { id: 2, idapikey: 2, resource: 'facturaclientes', allowget: b(true), allowpost: b(false), allowput: b(false), allowdelete: b(false) });
  for (const [codcuentaesp, descripcion] of [['CLIENT', 'Cuentas de clientes'], ['PROVEE', 'Cuentas de proveedores'], ['IVAREP', 'IVA repercutido'], ['IVASOP', 'IVA soportado'], ['IVARRE', 'Recargo de equivalencia'], ['VENTAS', 'Ventas'], ['COMPRA', 'Compras'], ['CAJA', 'Caja'], ['BANCOS', 'Bancos']]) add('cuentasesp', { codcuentaesp, descripcion });

  // --- The chart of each year: accounts (a tree), and sub-accounts for what the books post to.
  let idcuenta = 0;
  let idsubcuenta = 0;
  const subaccounts = new Map<string, { idsubcuenta: number; codsubcuenta: string; codejercicio: string; idcuenta: number }>();
  const chart = { subaccounts: [] as Array<{ idsubcuenta: number; codsubcuenta: string; codejercicio: string; idcuenta: number }>, parents: new Map<number, number | null>() };
  for (const year of years) {
    const codejercicio = String(year);
    const accounts = new Map<string, number>();
    const account = (codcuenta: string, descripcion: string, parent: string | null, codcuentaesp: string | null = null) => {
      const id = ++idcuenta;
      accounts.set(codcuenta, id);
      add('cuentas', { idcuenta: id, codcuenta, descripcion, codejercicio, parent_codcuenta: parent, parent_idcuenta: parent ? accounts.get(parent)! : null, codcuentaesp, debe: 0, haber: 0, saldo: 0 });
      chart.parents.set(id, parent ? accounts.get(parent)! : null);
    };
    for (const [code, name, parent, special] of [
      ['4', 'Acreedores y deudores', null, null], ['40', 'Proveedores', '4', null], ['400', 'Proveedores', '40', 'PROVEE'], ['43', 'Clientes', '4', null], ['430', 'Clientes', '43', 'CLIENT'],
      ['47', 'Administraciones públicas', '4', null], ['472', 'IVA soportado', '47', 'IVASOP'], ['477', 'IVA repercutido', '47', 'IVAREP'], ['475', 'Recargo de equivalencia', '47', 'IVARRE'],
      ['5', 'Cuentas financieras', null, null], ['57', 'Tesorería', '5', null], ['570', 'Caja', '57', 'CAJA'], ['572', 'Bancos', '57', 'BANCOS'],
      ['6', 'Compras y gastos', null, null], ['60', 'Compras', '6', null], ['600', 'Compras de mercaderías', '60', 'COMPRA'],
      ['7', 'Ventas e ingresos', null, null], ['70', 'Ventas', '7', null], ['700', 'Ventas de mercaderías', '70', 'VENTAS'],
    ] as const) account(code, name, parent, special);
    const sub = (codsubcuenta: string, codcuenta: string, descripcion: string) => {
      const row = { idsubcuenta: ++idsubcuenta, codsubcuenta, codcuenta, codejercicio, idcuenta: accounts.get(codcuenta)!, descripcion, debe: 0, haber: 0, saldo: 0, codcuentaesp: null };
      add('subcuentas', row);
      subaccounts.set(`${codejercicio}|${codsubcuenta}`, row);
      chart.subaccounts.push(row);
    };
    for (let n = 1; n <= scale.customers; n++) sub(`430${pad(n, 7)}`, '430', `Cliente ${n}`);
    for (let n = 1; n <= scale.suppliers; n++) sub(`400${pad(n, 7)}`, '400', `Proveedor ${n}`);
    for (const tax of TAXES) {
      sub(`477${pad(tax.iva, 7)}`, '477', `IVA repercutido ${tax.iva}%`);
      sub(`472${pad(tax.iva, 7)}`, '472', `IVA soportado ${tax.iva}%`);
    }
    sub('4750000000', '475', 'Recargo de equivalencia');
    sub('5700000000', '570', 'Caja');
    sub('5720000001', '572', 'Banco');
    sub('6000000000', '600', 'Compras');
    sub('7000000000', '700', 'Ventas');
  }
  const subaccount = (codejercicio: string, codsubcuenta: string) => subaccounts.get(`${codejercicio}|${codsubcuenta}`)!;

  // --- Customers (with their contact), suppliers, products with their variant and stock.
  const customers: Row[] = [];
  for (let n = 1; n <= scale.customers; n++) {
    const codcliente = String(n);
    add('contactos', { idcontacto: n, codcliente, nombre: `Cliente ${n}`, empresa: `Cliente ${n} SL`, cifnif: nif(10_000_000 + n), direccion: `Calle ${n}`, ciudad: 'Valencia', provincia: 'Valencia', codpais: 'ESP', codpostal: '46002', fechaalta: '2021-01-01', personafisica: b(false), aceptaprivacidad: b(true), admitemarketing: b(false), verificado: b(true) });
    customers.push(add('clientes', {
      codcliente, nombre: `Cliente ${n}`, razonsocial: `Cliente ${n} SL`, cifnif: nif(10_000_000 + n), codpago: n % 3 === 0 ? 'TRANS' : 'CONT', codserie: 'A', regimeniva: n % 7 === 0 ? 'Recargo' : 'General',
      codsubcuenta: `430${pad(n, 7)}`, idcontactofact: n, idcontactoenv: n, fechaalta: '2021-01-01', debaja: b(false), personafisica: b(false), riesgoalcanzado: 0, tipoidfiscal: 'NIF', email: `cliente${n}@example.com`,
    }));
  }
  add('cuentasbcocli', { codcuenta: '1', codcliente: '1', descripcion: 'Principal', iban: 'ES9121000418450200051332', swift: 'CAIXESBBXXX', principal: b(true), mandato: 'M1', fmandato: '2023-01-01' });
  // An IBAN entered years ago that today's check refuses (a digit wrong).
  add('cuentasbcocli', { codcuenta: '2', codcliente: '2', descripcion: 'Antigua', iban: 'ES9121000418450200051333', swift: null, principal: b(true), mandato: null, fmandato: null });
  for (let n = 1; n <= scale.suppliers; n++) {
    add('proveedores', { codproveedor: String(n), nombre: `Proveedor ${n}`, razonsocial: `Proveedor ${n} SA`, cifnif: nif(20_000_000 + n), codpago: 'TRANS', regimeniva: 'General', codsubcuenta: `400${pad(n, 7)}`, fechaalta: '2021-01-01', debaja: b(false), acreedor: b(false), personafisica: b(false), tipoidfiscal: 'NIF' });
  }
  const products: Array<{ idproducto: number; referencia: string; precio: number; tax: (typeof TAXES)[number] }> = [];
  for (let p = 1; p <= scale.products; p++) {
    const tax = TAXES[p % TAXES.length]!;
    const precio = 5 + (p % 20) * 2.5;
    const referencia = `REF${pad(p, 4)}`;
    const stock = 100 + p;
    products.push({ idproducto: p, referencia, precio, tax });
    add('productos', { idproducto: p, referencia, descripcion: `Producto ${p}`, precio, codimpuesto: tax.codimpuesto, stockfis: p === 1 ? 0 : stock, nostock: b(false), ventasinstock: b(true), secompra: b(true), sevende: b(true), bloqueado: b(false), publico: b(false), fechaalta: '2021-01-01', tipo: null });
    add('variantes', { idvariante: p, idproducto: p, referencia, precio, coste: round2(precio * 0.6), margen: 0, stockfis: p === 1 ? 0 : stock, codbarras: `84000000${pad(p, 5)}` });
    add('stocks', { idstock: p, codalmacen: 'ALG', referencia, idproducto: p, cantidad: stock, reservada: 0, pterecibir: 0, disponible: stock, stockmin: 0, stockmax: 0 });
  }

  // The reference data, the chart, customers, suppliers and products go in now: documents follow in batches.
  await flush(REFERENCE_ORDER);

  // --- Documents with their lines, totals as the calculation gives them.
  const taxMap = new Map([...TAXES, { codimpuesto: 'IVA0', iva: 0, recargo: 0 }].map((tax) => [tax.codimpuesto, { ...tax, tipo: 1, operacion: null }]));
  const context = (regimeniva: string, tipo: string | null): CalcContext => ({
    decimals: 2, method: 'classic', serie: { siniva: false, tipo }, company: { codpais: 'ESP', regimeniva: 'General' }, subject: { regimeniva, excepcioniva: null }, taxes: taxMap, zones: [],
  });
  const linesFor = (count: number, surcharge: boolean, sign: 1 | -1) => Array.from({ length: scale.lines ?? count }, (_, index) => {
    const product = products[Math.floor(rand() * products.length)]!;
    const cantidad = sign * (1 + Math.floor(rand() * 5));
    const dtopor = index === 2 ? 10 : 0;
    return { product, line: { cantidad, pvpunitario: product.precio, dtopor, dtopor2: 0, codimpuesto: product.tax.codimpuesto, iva: product.tax.iva, recargo: surcharge ? product.tax.recargo : 0, irpf: 0, suplido: false, coste: 0, excepcioniva: null } satisfies CalcLine };
  });
  const totalsOf = (lines: CalcLine[], regimeniva: string, tipo: string | null, side: 'sales' | 'purchase') => calculateDocument({ side, dtopor1: 0, dtopor2: 0, operacion: null, codpais: 'ESP', provincia: null }, lines, context(regimeniva, tipo), storedTax);

  const entryNumbers = new Map<string, number>();
  // What each sub-account's lines sum to, kept as they are written (the balances are set at the end).
  const sums = new Map<number, { debe: number; haber: number }>();
  let idasiento = 0;
  let idpartida = 0;
  const entry = (codejercicio: string, fecha: string, concepto: string, documento: string, parts: Array<[string, number, number]>) => {
    const id = ++idasiento;
    const numero = (entryNumbers.get(codejercicio) ?? 0) + 1;
    entryNumbers.set(codejercicio, numero);
    const importe = round2(parts.reduce((sum, [, debe]) => sum + debe, 0));
    add('asientos', { idasiento: id, numero, codejercicio, idempresa: 1, fecha, concepto, documento, importe, editable: b(false), canal: null, iddiario: null, operacion: null });
    parts.forEach(([codsubcuenta, debe, haber], orden) => {
      const sub = subaccount(codejercicio, codsubcuenta);
      add('partidas', { idpartida: ++idpartida, idasiento: id, idsubcuenta: sub.idsubcuenta, codsubcuenta, concepto, documento, debe: round2(debe), haber: round2(haber), orden, punteada: b(false), tasaconv: 1, coddivisa: 'EUR', baseimponible: 0, iva: 0, recargo: 0, saldo: 0 });
      const sum = sums.get(sub.idsubcuenta) ?? { debe: 0, haber: 0 };
      sums.set(sub.idsubcuenta, { debe: round2(sum.debe + round2(debe)), haber: round2(sum.haber + round2(haber)) });
    });
    return id;
  };

  let idfactura = 0;
  let idlinea = 0;
  let idrecibo = 0;
  let idpago = 0;
  let idfacturaprov = 0;
  let idlineaprov = 0;
  let idreciboprov = 0;
  let idpagoprov = 0;
  const numbers = new Map<string, number>();
  const take = (key: string, skip?: number) => {
    let n = (numbers.get(key) ?? 0) + 1;
    if (n === skip) n++;
    numbers.set(key, n);
    return n;
  };
  let gap = { numero: 0, fecha: '' };
  let centOff = { idfactura: 0, codigo: '' };
  let creditNote = { idfactura: 0, codigo: '' };
  // The first sales invoice (a file is attached to it) and the latest ones (refunded, delivered).
  let firstSale: Row | undefined;
  const recentSales: Row[] = [];

  const salesInvoice = (year: number, index: number, codserie: string, customer: Row, lineCount: number, options: { rectifies?: Row; centOff?: boolean; skip?: number } = {}) => {
    const codejercicio = String(year);
    const fecha = options.rectifies ? `${year}-12-20` : day(year, index, scale.salesPerYear);
    const numero = take(`FacturaCliente|${codserie}|${year}`, options.skip);
    const codigo = `F${year}${codserie}${numero}`;
    const surcharge = customer.regimeniva === 'Recargo';
    const built = linesFor(lineCount, surcharge, options.rectifies ? -1 : 1);
    const calc = totalsOf(built.map((item) => item.line), String(customer.regimeniva), options.rectifies ? 'R' : null, 'sales');
    const id = ++idfactura;
    const totals = { ...calc.totals };
    if (options.centOff) Object.assign(totals, { totaliva: round2(totals.totaliva + 0.01), total: round2(totals.total + 0.01) });
    const paid = customer.codpago === 'CONT' || index % 3 === 0 || Boolean(options.rectifies);
    const header = add('facturascli', {
      idfactura: id, codigo, numero: String(numero), codserie, codejercicio, idempresa: 1, codalmacen: 'ALG', coddivisa: 'EUR', tasaconv: 1, codpago: customer.codpago, fecha, hora: '10:00:00',
      codcliente: customer.codcliente, nombrecliente: customer.nombre, cifnif: customer.cifnif, direccion: 'Calle', ciudad: 'Valencia', provincia: 'Valencia', codpais: 'ESP', codpostal: '46002',
      idcontactofact: customer.idcontactofact, idcontactoenv: customer.idcontactoenv, dtopor1: 0, dtopor2: 0, irpf: 0,
      neto: totals.neto, netosindto: totals.netosindto, totaliva: totals.totaliva, totalrecargo: totals.totalrecargo, totalirpf: totals.totalirpf, totalsuplidos: totals.totalsuplidos, total: totals.total,
      totaleuros: totals.total, totalcoste: 0, totalbeneficio: totals.neto, numdocs: 0, femail: null, nick: 'admin', observaciones: null,
      // A credit note made through the API without a status keeps none, stays editable, and its `pagada` waits for the nightly job.
      idestado: options.rectifies ? null : statuses.FacturaCliente!.closed, editable: b(Boolean(options.rectifies)),
      pagada: b(paid && !options.rectifies), vencida: b(false),
      idfacturarect: options.rectifies ? options.rectifies.idfactura : null, codigorect: options.rectifies ? options.rectifies.codigo : null,
    });
    firstSale ??= header;
    recentSales.push(header);
    if (recentSales.length > scale.deliveryNotes + 2) recentSales.shift();
    built.forEach(({ product, line }, orden) => {
      const amounts = calc.lines[orden]!;
      add('lineasfacturascli', {
        idlinea: ++idlinea, idfactura: id, referencia: product.referencia, idproducto: product.idproducto, descripcion: `Producto ${product.idproducto}`, cantidad: line.cantidad, pvpunitario: line.pvpunitario,
        dtopor: line.dtopor, dtopor2: 0, pvpsindto: amounts.pvpsindto, pvptotal: amounts.pvptotal, codimpuesto: line.codimpuesto, iva: line.iva, recargo: line.recargo, irpf: 0, suplido: b(false),
        actualizastock: options.rectifies ? 0 : -1, servido: 0, orden, coste: 0, mostrar_cantidad: b(true), mostrar_precio: b(true), salto_pagina: b(false), excepcioniva: null,
      });
    });
    // Its entry: the customer's sub-account against sales and VAT per rate (and surcharge).
    const parts: Array<[string, number, number]> = [];
    const client = `430${pad(Number(customer.codcliente), 7)}`;
    const sign = (amount: number): [number, number] => (amount >= 0 ? [amount, 0] : [0, -amount]);
    parts.push([client, ...sign(totals.total)]);
    parts.push(['7000000000', ...sign(-totals.neto)]);
    for (const group of calc.groups) {
      // The cent a planted invoice's stored VAT is off goes to its first group: its entry still balances.
      const amount = group === calc.groups[0] ? round2(group.totaliva + (totals.totaliva - calc.totals.totaliva)) : group.totaliva;
      if (amount !== 0) parts.push([`477${pad(group.iva, 7)}`, ...sign(-amount)]);
    }
    if (totals.totalrecargo) parts.push(['4750000000', ...sign(-totals.totalrecargo)]);
    header.idasiento = entry(codejercicio, fecha, `Factura ${codigo}`, codigo, parts);
    // Its receipt, and the payment of a paid one, with its entry (a cash sale's sometimes to the bank).
    const recibo = ++idrecibo;
    add('recibospagoscli', {
      idrecibo: recibo, idfactura: id, codigofactura: codigo, numero: 1, codcliente: customer.codcliente, idempresa: 1, coddivisa: 'EUR', codpago: customer.codpago, importe: totals.total, fecha,
      vencimiento: fecha, pagado: b(paid), fechapago: paid ? fecha : null, vencido: b(false), liquidado: 0, gastos: 0, nick: 'admin',
    });
    if (paid) {
      const account = customer.codpago === 'CONT' && index % 5 !== 0 ? '5700000000' : '5720000001';
      const payment = entry(codejercicio, fecha, `Cobro ${codigo}`, codigo, [[account, ...sign(totals.total)], [client, ...sign(-totals.total)]]);
      add('pagoscli', { idpago: ++idpago, idrecibo: recibo, importe: totals.total, fecha, hora: '10:05:00', codpago: customer.codpago, idasiento: payment, gastos: 0, nick: 'admin' });
    }
    return header;
  };

  for (const year of years) {
    // 2026's serie A skips a number (an invoice deleted, its gap left for the next one to fill).
    const skip = year === 2026 ? 3 : undefined;
    for (let index = 0; index < scale.salesPerYear; index++) {
      const customer = customers[index % customers.length]!;
      const header = salesInvoice(year, index, 'A', customer, 1 + Math.floor(rand() * scale.maxLines), { skip, centOff: year === 2025 && index === 5 });
      if (year === 2026 && Number(header.numero) === 4) gap = { numero: 3, fecha: String(header.fecha) };
      if (year === 2025 && index === 5) centOff = { idfactura: Number(header.idfactura), codigo: String(header.codigo) };
      if ((index + 1) % 250 === 0) await flush(DOCUMENTS);
    }
  }
  const rectified = recentSales[recentSales.length - 2]!;
  const credit = salesInvoice(2026, 0, 'R', customers.find((customer) => customer.codcliente === rectified.codcliente)!, 1, { rectifies: rectified });
  creditNote = { idfactura: Number(credit.idfactura), codigo: String(credit.codigo) };

  // Purchase invoices, with their entry (purchases and VAT against the supplier), receipt and payment.
  for (const year of years) {
    const codejercicio = String(year);
    for (let index = 0; index < scale.purchasesPerYear; index++) {
      const n = 1 + (index % scale.suppliers);
      const fecha = day(year, index, scale.purchasesPerYear);
      const numero = take(`FacturaProveedor|A|${year}`);
      const codigo = `FP${year}A${numero}`;
      const built = linesFor(1 + Math.floor(rand() * scale.maxLines), false, 1);
      const calc = totalsOf(built.map((item) => item.line), 'General', null, 'purchase');
      const id = ++idfacturaprov;
      const paid = index % 2 === 0;
      const header = add('facturasprov', {
        idfactura: id, codigo, numero: String(numero), numproveedor: `P-${year}-${index}`, codserie: 'A', codejercicio, idempresa: 1, codalmacen: 'ALG', coddivisa: 'EUR', tasaconv: 1, codpago: 'TRANS', fecha, hora: '09:00:00',
        codproveedor: String(n), nombre: `Proveedor ${n}`, cifnif: nif(20_000_000 + n), dtopor1: 0, dtopor2: 0, irpf: 0, neto: calc.totals.neto, netosindto: calc.totals.netosindto, totaliva: calc.totals.totaliva,
        totalrecargo: 0, totalirpf: 0, totalsuplidos: 0, total: calc.totals.total, totaleuros: calc.totals.total, numdocs: 0, idestado: statuses.FacturaProveedor!.closed, editable: b(false), pagada: b(paid), vencida: b(false), nick: 'admin',
      });
      built.forEach(({ product, line }, orden) => {
        const amounts = calc.lines[orden]!;
        add('lineasfacturasprov', {
          idlinea: ++idlineaprov, idfactura: id, referencia: product.referencia, idproducto: product.idproducto, descripcion: `Producto ${product.idproducto}`, cantidad: line.cantidad, pvpunitario: line.pvpunitario,
          dtopor: line.dtopor, dtopor2: 0, pvpsindto: amounts.pvpsindto, pvptotal: amounts.pvptotal, codimpuesto: line.codimpuesto, iva: line.iva, recargo: 0, irpf: 0, suplido: b(false), actualizastock: 1, servido: 0, orden,
        });
      });
      const supplier = `400${pad(n, 7)}`;
      header.idasiento = entry(codejercicio, fecha, `Factura proveedor ${codigo}`, codigo, [
        ['6000000000', calc.totals.neto, 0], ...calc.groups.filter((group) => group.totaliva !== 0).map((group): [string, number, number] => [`472${pad(group.iva, 7)}`, group.totaliva, 0]), [supplier, 0, calc.totals.total],
      ]);
      const recibo = ++idreciboprov;
      add('recibospagosprov', { idrecibo: recibo, idfactura: id, codigofactura: codigo, numero: 1, codproveedor: String(n), idempresa: 1, coddivisa: 'EUR', codpago: 'TRANS', importe: calc.totals.total, fecha, vencimiento: fecha, pagado: b(paid), fechapago: paid ? fecha : null, vencido: b(false), liquidado: 0, nick: 'admin' });
      if (paid) {
        const payment = entry(codejercicio, fecha, `Pago ${codigo}`, codigo, [[supplier, calc.totals.total, 0], ['5720000001', 0, calc.totals.total]]);
        add('pagosprov', { idpago: ++idpagoprov, idrecibo: recibo, importe: calc.totals.total, fecha, hora: '09:05:00', codpago: 'TRANS', idasiento: payment, nick: 'admin' });
      }
      if ((index + 1) % 250 === 0) await flush(DOCUMENTS);
    }
  }
  await flush(DOCUMENTS);

  // Delivery notes; each of the first ones became an invoice (its lines' transformations kept).
  let idalbaran = 0;
  let idlineaalb = 0;
  const lastInvoices = recentSales.filter((row) => row.codejercicio === '2026').slice(-scale.deliveryNotes);
  for (let index = 0; index < scale.deliveryNotes; index++) {
    const customer = customers[index % customers.length]!;
    const numero = take('AlbaranCliente|A|2026');
    const built = linesFor(1 + (index % scale.maxLines), customer.regimeniva === 'Recargo', 1);
    const calc = totalsOf(built.map((item) => item.line), String(customer.regimeniva), null, 'sales');
    const id = ++idalbaran;
    add('albaranescli', {
      idalbaran: id, codigo: `ALB2026A${numero}`, numero: String(numero), codserie: 'A', codejercicio: '2026', idempresa: 1, codalmacen: 'ALG', coddivisa: 'EUR', tasaconv: 1, codpago: customer.codpago, fecha: day(2026, index, scale.deliveryNotes), hora: '08:00:00',
      codcliente: customer.codcliente, nombrecliente: customer.nombre, cifnif: customer.cifnif, dtopor1: 0, dtopor2: 0, irpf: 0, neto: calc.totals.neto, netosindto: calc.totals.netosindto, totaliva: calc.totals.totaliva, totalrecargo: calc.totals.totalrecargo,
      totalirpf: 0, totalsuplidos: 0, total: calc.totals.total, totaleuros: calc.totals.total, totalcoste: 0, totalbeneficio: calc.totals.neto, numdocs: 0, idestado: statuses.AlbaranCliente!.closed, editable: b(false), nick: 'admin',
    });
    built.forEach(({ product, line }, orden) => {
      const amounts = calc.lines[orden]!;
      const lineId = ++idlineaalb;
      add('lineasalbaranescli', {
        idlinea: lineId, idalbaran: id, referencia: product.referencia, idproducto: product.idproducto, descripcion: `Producto ${product.idproducto}`, cantidad: line.cantidad, pvpunitario: line.pvpunitario, dtopor: line.dtopor, dtopor2: 0,
        pvpsindto: amounts.pvpsindto, pvptotal: amounts.pvptotal, codimpuesto: line.codimpuesto, iva: line.iva, recargo: line.recargo, irpf: 0, suplido: b(false), actualizastock: -1, servido: line.cantidad, orden, coste: 0,
        mostrar_cantidad: b(true), mostrar_precio: b(true), salto_pagina: b(false),
      });
      const invoice = lastInvoices[index];
      if (invoice) add('doctransformations', { model1: 'AlbaranCliente', iddoc1: id, idlinea1: lineId, model2: 'FacturaCliente', iddoc2: invoice.idfactura, idlinea2: 1, cantidad: line.cantidad });
    });
  }

  // Sequences: each serie and year's counter after its numbers; 2025's customer invoices lag (the
  // system corrects it when it next numbers); customer invoices fill gaps.
  for (const [key, highest] of numbers) {
    const [tipodoc, codserie, year] = key.split('|') as [string, string, string];
    const prefix = { FacturaCliente: 'F', FacturaProveedor: 'FP', AlbaranCliente: 'ALB' }[tipodoc] ?? 'X';
    const lagging = tipodoc === 'FacturaCliente' && codserie === 'A' && year === '2025';
    add('secuencias_documentos', {
      tipodoc, codserie, codejercicio: year, idempresa: 1, inicio: 1, numero: lagging ? highest - 3 : highest + 1, longnumero: 6, patron: `${prefix}{EJE}{SERIE}{NUM}`,
      usarhuecos: b(tipodoc === 'FacturaCliente'), mantenerfecha: b(false),
    });
  }

  const q = (name: string) => quote(connection.engine, name);
  // Balances as the queue left them: every sub-account and account up to date but one (its
  // sub-account short of a hundred on its credit side). Written over the rows made with zeros.
  const accountSums = new Map<number, { debe: number; haber: number }>();
  const staleSub = subaccount('2026', '7000000000');
  let stale = { codsubcuenta: '', codejercicio: '', debe: 0, haber: 0 };
  for (const row of chart.subaccounts) {
    const sum = sums.get(row.idsubcuenta) ?? { debe: 0, haber: 0 };
    const kept = row.idsubcuenta === staleSub.idsubcuenta ? { debe: sum.debe, haber: round2(sum.haber - 100) } : sum;
    if (row.idsubcuenta === staleSub.idsubcuenta) stale = { codsubcuenta: row.codsubcuenta, codejercicio: row.codejercicio, ...sum };
    if (kept.debe || kept.haber) await connection.query(`UPDATE ${q('subcuentas')} SET ${q('debe')} = ?, ${q('haber')} = ?, ${q('saldo')} = ? WHERE ${q('idsubcuenta')} = ?`, [kept.debe, kept.haber, round2(kept.debe - kept.haber), row.idsubcuenta]);
    for (let id: number | null = row.idcuenta; id !== null; id = chart.parents.get(id) ?? null) {
      const total = accountSums.get(id) ?? { debe: 0, haber: 0 };
      accountSums.set(id, { debe: round2(total.debe + kept.debe), haber: round2(total.haber + kept.haber) });
    }
  }
  for (const [id, total] of accountSums) {
    await connection.query(`UPDATE ${q('cuentas')} SET ${q('debe')} = ?, ${q('haber')} = ?, ${q('saldo')} = ? WHERE ${q('idcuenta')} = ?`, [total.debe, total.haber, round2(total.debe - total.haber), id]);
  }

  // Queued work, two events not yet processed; files attached to an invoice and a product; logs.
  for (let n = 1; n <= 5; n++) add('work_events', { id: n, name: n % 2 ? 'Model.FacturaCliente.Save' : 'Model.Asiento.Save', value: String(n), creation_date: `2026-11-0${n} 10:00:00`, done: b(n <= 3), done_date: n <= 3 ? `2026-11-0${n} 10:00:05` : null, nick: 'admin', workers: 1, execution_time: n <= 3 ? 0.01 : null });
  const files = [
    { idfile: 1, path: 'MyFiles/2026/01/1_contrato.pdf', content: '%PDF-1.4 contrato' },
    { idfile: 2, path: 'MyFiles/2026/02/2_foto-producto.png', content: 'PNG foto' },
    { idfile: 3, path: 'MyFiles/2026/02/3_perdido.txt', content: '' },
  ];
  for (const file of files) add('attached_files', { idfile: file.idfile, filename: file.path.split('/').pop()!.replace(/^\d+_/, ''), path: file.path, size: file.content.length, mimetype: file.path.endsWith('.pdf') ? 'application/pdf' : file.path.endsWith('.png') ? 'image/png' : 'text/plain', date: '2026-01-15', hour: '12:00:00' });
  const firstInvoice = firstSale!;
  add('attached_files_rel', { id: 1, idfile: 1, model: 'FacturaCliente', modelid: firstInvoice.idfactura, modelcode: firstInvoice.codigo, nick: 'admin', creationdate: '2026-01-15 12:00:00', observations: 'Contrato firmado', orden: 1 });
  add('attached_files_rel', { id: 2, idfile: 3, model: 'Cliente', modelid: 0, modelcode: '1', nick: 'admin', creationdate: '2026-02-01 12:00:00', observations: null, orden: 1 });
  add('productos_imagenes', { id: 1, idfile: 2, idproducto: 1, referencia: 'REF0001', orden: 1 });
  firstInvoice.numdocs = 1;
  for (let n = 1; n <= 3; n++) add('logs', { id: n, channel: 'master', level: 'info', message: `Mensaje ${n}`, time: `2026-10-0${n} 09:00:00`, nick: 'admin', ip: '127.0.0.1', uri: '/Dashboard' });

  // The rest, parents first (the source has its foreign keys).
  const rest = ['albaranescli', 'lineasalbaranescli', 'doctransformations', 'secuencias_documentos', 'work_events', 'attached_files', 'attached_files_rel', 'productos_imagenes', 'logs'];
  const left = [...tables].filter(([name, rows]) => rows.length && !rest.includes(name)).map(([name]) => name);
  if (left.length) throw new Error(`books: no place in the order for ${left.join(', ')}`);
  // The first quarter of 2025, settled and locked by the system itself.
  add('regularizacionimpuestos', { idregiva: 1, codejercicio: '2025', periodo: 'T1', fechainicio: '2025-01-01', fechafin: '2025-03-31', fechaasiento: '2025-03-31', idempresa: 1, bloquear: b(true), idasiento: null });
  rest.push('regularizacionimpuestos');
  await flush(rest);
  if (mysql) {
    // What old MySQL installations hold: a zero timestamp (the server's default mode takes it).
    await connection.query("SET SESSION sql_mode = ''");
    await connection.query(`INSERT INTO ${quote(connection.engine, 'logs')} (id, channel, level, message, time) VALUES (4, 'master', 'info', 'Sin fecha', '0000-00-00 00:00:00')`);
    written.logs = (written.logs ?? 0) + 1;
  }
  for (const [codcliente, idcontacto] of contactCustomers) await connection.query(`UPDATE ${q('contactos')} SET ${q('codcliente')} = ? WHERE ${q('idcontacto')} = ?`, [codcliente, idcontacto]);

  // A plugin's table and a column the system dropped from its definitions: the import lists both.
  await connection.query(`CREATE TABLE ${q('plugin_notas')} (${q('id')} INTEGER PRIMARY KEY, ${q('nota')} VARCHAR(100))`);
  await connection.insert('plugin_notas', [{ id: 1, nota: 'uno' }, { id: 2, nota: 'dos' }, { id: 3, nota: 'tres' }]);
  await connection.query(`ALTER TABLE ${q('clientes')} ADD COLUMN ${q('codigo_antiguo')} VARCHAR(20)`);
  await connection.query(`UPDATE ${q('clientes')} SET ${q('codigo_antiguo')} = ? WHERE ${q('codcliente')} = ?`, ['C-0001', '1']);

  const rows = written;
  return {
    tokens, gap, creditNote, centOff, stale,
    next2025: numbers.get('FacturaCliente|A|2025')! + 1,
    badIban: { codcliente: '2', codcuenta: '2' },
    settledQuarter: '1T',
    unprocessedEvents: 2,
    pluginTable: { name: 'plugin_notas', rows: 3 },
    oldColumn: { table: 'clientes', column: 'codigo_antiguo' },
    rows,
    files,
  };
}
