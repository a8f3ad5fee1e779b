import type { AppContext } from '../../app-context.ts';
import type { DataSeed } from '../../db/data-seeds.ts';
import type { DbExecutor } from '../../db/database.ts';
import { randomBytes } from 'node:crypto';
import type { Values } from '../../models/define-model.ts';
import { importChart } from '../accounting/index.ts';
import { settingsIn } from '../settings/index.ts';
import { countryRows } from './countries.ts';
import { SPANISH_PROVINCES } from './spanish-provinces.ts';

/**
 * The state of a new installation: the reference's post-wizard Spanish (ESP) installation
 * (facturascripts-model.md section 4). Rates and percentages are the reference's numbers.
 */
function insertAll(resource: string, rows: Values[]) {
  return async (ctx: AppContext, trx: DbExecutor) => {
    const model = ctx.registry.get(resource);
    if (!model) throw new Error(`default data for unknown resource ${resource}`);
    for (const row of rows) await ctx.store.create(model, row, trx);
  };
}

/** The installation's current year (on its wall clock). */
const year = (ctx: AppContext) => Number(ctx.clock.today().date.slice(0, 4));

const tax = (codimpuesto: string, iva: number, recargo: number, operacion: string, label: string): Values => ({
  codimpuesto,
  descripcion: `${label} ${iva}%`,
  iva,
  recargo,
  operacion,
  tipo: 1,
  activo: true,
});

type Status = [id: number, tipodoc: string, nombre: string, stock: number, extra?: { predeterminado?: boolean; editable?: boolean; generadoc?: string }];

const STATUSES: Status[] = [
  [1, 'PresupuestoCliente', 'Abierto', 0, { predeterminado: true, editable: true }],
  [2, 'PresupuestoCliente', 'Pedido', 0, { generadoc: 'PedidoCliente' }],
  [3, 'PresupuestoCliente', 'Rechazado', 0],
  [4, 'PedidoCliente', 'Abierto', -2, { predeterminado: true, editable: true }],
  [5, 'PedidoCliente', 'Albarán', 0, { generadoc: 'AlbaranCliente' }],
  [6, 'PedidoCliente', 'Cancelado', 0],
  [7, 'AlbaranCliente', 'Abierto', -1, { predeterminado: true, editable: true }],
  [8, 'AlbaranCliente', 'Facturar', 0, { generadoc: 'FacturaCliente' }],
  [9, 'AlbaranCliente', 'Devuelto', 0],
  [10, 'FacturaCliente', 'Boceto', -1, { predeterminado: true, editable: true }],
  [11, 'FacturaCliente', 'Emitida', -1],
  [12, 'PresupuestoProveedor', 'Abierto', 0, { predeterminado: true, editable: true }],
  [13, 'PresupuestoProveedor', 'Pedido', 0, { generadoc: 'PedidoProveedor' }],
  [14, 'PresupuestoProveedor', 'Cancelado', 0],
  [15, 'PedidoProveedor', 'Abierto', 2, { predeterminado: true, editable: true }],
  [16, 'PedidoProveedor', 'Albarán', 0, { generadoc: 'AlbaranProveedor' }],
  [17, 'PedidoProveedor', 'Cancelado', 0],
  [18, 'AlbaranProveedor', 'Abierto', 1, { predeterminado: true, editable: true }],
  [19, 'AlbaranProveedor', 'Facturar', 0, { generadoc: 'FacturaProveedor' }],
  [20, 'AlbaranProveedor', 'Devuelto', 0],
  [21, 'FacturaProveedor', 'Boceto', 1, { predeterminado: true, editable: true }],
  [22, 'FacturaProveedor', 'Recibida', 1],
  [23, 'PresupuestoCliente', 'Caducado', 0],
  [24, 'PresupuestoCliente', 'Facturar', 0, { generadoc: 'FacturaCliente' }],
  [25, 'PedidoCliente', 'Facturar', 0, { generadoc: 'FacturaCliente' }],
  [26, 'PresupuestoProveedor', 'Facturar', 0, { generadoc: 'FacturaProveedor' }],
  [27, 'PedidoProveedor', 'Facturar', 0, { generadoc: 'FacturaProveedor' }],
];

/** Spanish general chart of accounts, group 62: the expense items seeded as products. */
const EXPENSES: Array<[string, string]> = [
  ['CONTA621', 'Arrendamientos y cánones'],
  ['CONTA622', 'Reparaciones y conservación'],
  ['CONTA623', 'Servicios de profesionales independientes'],
  ['CONTA624', 'Transportes'],
  ['CONTA625', 'Primas de seguros'],
  ['CONTA626', 'Servicios bancarios y similares'],
  ['CONTA627', 'Publicidad, propaganda y relaciones públicas'],
  ['CONTA628', 'Suministros'],
  ['CONTA629', 'Otros servicios'],
];

export const DEFAULT_DATA: DataSeed[] = [
  {
    id: 'geography',
    run: async (ctx, trx) => {
      await insertAll('pais', countryRows())(ctx, trx);
      await insertAll('provincia', SPANISH_PROVINCES.map(([provincia, codisoprov]) => ({ codpais: 'ESP', provincia, codisoprov })))(ctx, trx);
    },
  },
  {
    id: 'company',
    run: async (ctx, trx) => {
      await insertAll('empresa', [
        { idempresa: 1, nombre: 'Mi empresa', nombrecorto: 'Mi empresa', cifnif: '00000014Z', tipoidfiscal: 'NIF', codpais: 'ESP', personafisica: false, regimeniva: 'General' },
      ])(ctx, trx);
      await insertAll('almacen', [{ codalmacen: 'ALG', nombre: 'ALMACEN GENERAL', idempresa: 1, codpais: 'ESP', activo: true }])(ctx, trx);
      await insertAll('ejercicio', [
        { codejercicio: String(year(ctx)), nombre: String(year(ctx)), fechainicio: `${year(ctx)}-01-01`, fechafin: `${year(ctx)}-12-31`, estado: 'ABIERTO', longsubcuenta: 10, idempresa: 1 },
      ])(ctx, trx);
      await insertAll('serie', [
        { codserie: 'A', descripcion: 'General', siniva: false },
        { codserie: 'R', descripcion: 'Rectificativas', tipo: 'R', siniva: false },
        { codserie: 'S', descripcion: 'Simplificadas', tipo: 'S', siniva: false },
      ])(ctx, trx);
      await insertAll('identificadorfiscal', ['CIF', 'DNI', 'NIE', 'NIF', 'Pasaporte', 'VAT'].map((tipoidfiscal) => ({ tipoidfiscal })))(ctx, trx);
    },
  },
  {
    id: 'taxes',
    run: insertAll('impuesto', [
      tax('IVA0', 0, 0, 'ES_01', 'IVA'),
      tax('IVA4', 4, 0.5, 'ES_01', 'IVA'),
      tax('IVA10', 10, 1.4, 'ES_01', 'IVA'),
      tax('IVA21', 21, 5.2, 'ES_01', 'IVA'),
      ...[0, 3, 6.5, 7, 9.5, 13.5, 15, 20].map((rate) => tax(`IGIC${rate}`, rate, 0, 'ES_03', 'IGIC')),
      ...[0, 0.5, 1, 2, 4, 10].map((rate) => tax(`IPSI${rate}`, rate, 0, 'ES_04', 'IPSI')),
    ]),
  },
  {
    id: 'retentions',
    run: insertAll('retencion', [2, 7, 15, 19, 21].map((porcentaje) => ({ codretencion: `IRPF${porcentaje}`, descripcion: `IRPF ${porcentaje}%`, porcentaje, activa: true }))),
  },
  {
    id: 'currencies',
    // The reference seeds 25 currencies but gives the rates of these three only; the others are
    // left for the installation to add with its own rates rather than with invented numbers.
    run: insertAll('divisa', [
      { coddivisa: 'EUR', codiso: '978', descripcion: 'Euro', simbolo: '€', tasaconv: 1, tasaconvcompra: 1 },
      { coddivisa: 'GBP', codiso: '826', descripcion: 'Libra esterlina', simbolo: '£', tasaconv: 0.865, tasaconvcompra: 0.865 },
      { coddivisa: 'USD', codiso: '840', descripcion: 'Dólar estadounidense', simbolo: '$', tasaconv: 1.129, tasaconvcompra: 1.129 },
    ]),
  },
  {
    id: 'payment-methods',
    run: insertAll('formapago', [
      { codpago: 'CONT', descripcion: 'Al contado', plazovencimiento: 0, tipovencimiento: 'days', domiciliado: false, idempresa: 1 },
      { codpago: 'TRANS', descripcion: 'Transferencia bancaria', plazovencimiento: 1, tipovencimiento: 'months', domiciliado: false, idempresa: 1 },
      { codpago: 'TARJETA', descripcion: 'Tarjeta de crédito', plazovencimiento: 0, tipovencimiento: 'days', domiciliado: false, idempresa: 1 },
      { codpago: 'PAYPAL', descripcion: 'PayPal', plazovencimiento: 0, tipovencimiento: 'days', domiciliado: false, idempresa: 1 },
    ]),
  },
  {
    id: 'document-statuses',
    run: insertAll(
      'estadodocumento',
      STATUSES.map(([idestado, tipodoc, nombre, actualizastock, extra = {}]) => ({
        idestado,
        tipodoc,
        nombre,
        actualizastock,
        predeterminado: extra.predeterminado ?? false,
        editable: extra.editable ?? false,
        generadoc: extra.generadoc ?? null,
        bloquear: true,
        activo: true,
      })),
    ),
  },
  {
    id: 'carriers-and-families',
    run: async (ctx, trx) => {
      await insertAll('agenciatransporte', ['ASM', 'TIPSA', 'SEUR', 'MRW', 'DHL'].map((codtrans) => ({ codtrans, nombre: codtrans })))(ctx, trx);
      await insertAll('familia', [{ codfamilia: 'CONTA', descripcion: 'Contabilidad' }])(ctx, trx);
    },
  },
  {
    id: 'expense-products',
    run: insertAll(
      'producto',
      // Each expense posts to its own purchases sub-account of group 62 (CONTA621 -> 6210000000).
      EXPENSES.map(([referencia, descripcion]) => ({
        referencia, descripcion, nostock: true, secompra: true, sevende: false, codimpuesto: 'IVA21', codfamilia: 'CONTA', codsubcuentacom: `${referencia.slice(5)}0000000`,
      })),
    ),
  },
  {
    id: 'chart-of-accounts',
    // The wizard's default: the Spanish chart in the first fiscal year (and, through the setting,
    // in every later one). An installation made before the setting existed has it off and gets none.
    run: async (ctx, trx) => {
      if (!(await settingsIn(trx)).defaultplan) return false;
      await importChart(ctx, trx, String(year(ctx)), 'ESP');
    },
  },
  {
    id: 'admin-user',
    // The reference's installer creates `admin`/`admin`. This API has no user login, so the account
    // exists for document authorship only and gets an unguessable password nobody knows.
    run: insertAll('user', [{ nick: 'admin', password: randomBytes(24).toString('base64url'), admin: true, enabled: true, level: 99, idempresa: 1, codalmacen: 'ALG' }]),
  },
];
