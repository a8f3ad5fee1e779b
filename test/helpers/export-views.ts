import type { ExportLine, ExportParty, ExportTaxGroup, ExportView } from '../../src/modules/export/export-view.ts';

/**
 * Built export views for renderer tests (renderers never read the database). The sample is a
 * Spanish sale with two VAT rates whose totals add up to the cent; tests override what they
 * exercise and use `withLines` to recompute the breakdown.
 */
export function party(overrides: Partial<ExportParty> = {}): ExportParty {
  return {
    code: null,
    name: 'Ferretería Ejemplo',
    legalName: 'Ferretería Ejemplo SL',
    taxId: 'B12345674',
    taxIdType: 'CIF',
    naturalPerson: false,
    address: { street: 'Calle Mayor 1', postcode: '28001', city: 'Madrid', province: 'Madrid', country: 'ESP', countryIso2: 'ES', countryName: 'España' },
    email: 'admin@example.com',
    phone: '910000000',
    web: '',
    ...overrides,
  };
}

export function line(position: number, overrides: Partial<ExportLine> = {}): ExportLine {
  const base: ExportLine = {
    position, reference: `REF${position}`, description: `Artículo ${position}`, quantity: 2, unitPrice: 10, discount: 0, discount2: 0,
    grossAmount: 20, netAmount: 20, taxCode: 'IVA21', vatRate: 21, surchargeRate: 0, irpfRate: 0, vatException: null, supplied: false,
    showQuantity: true, showPrice: true, pageBreakBefore: false,
  };
  const merged = { ...base, ...overrides };
  if (overrides.grossAmount === undefined) merged.grossAmount = round(merged.quantity * merged.unitPrice, 6);
  if (overrides.netAmount === undefined) merged.netAmount = round(merged.grossAmount * (1 - merged.discount / 100) * (1 - merged.discount2 / 100), 6);
  return merged;
}

const round = (value: number, decimals = 2) => Number(`${Math.round(Number(`${Math.abs(value)}e${decimals}`))}e-${decimals}`) * Math.sign(value) || 0;

/** The view with these lines, its breakdown and totals recomputed as the document engine does (classic method). */
export function withLines(view: ExportView, lines: ExportLine[], globalDiscount = view.totals.globalDiscount, globalDiscount2 = view.totals.globalDiscount2): ExportView {
  const factor = (1 - globalDiscount / 100) * (1 - globalDiscount2 / 100);
  const groups = new Map<string, ExportTaxGroup & { rawBase: number; rawVat: number; rawSurcharge: number }>();
  let supplied = 0;
  let irpf = 0;
  let irpfRate = 0;
  for (const item of lines) {
    const net = item.netAmount * factor;
    if (item.supplied) {
      supplied += net;
      continue;
    }
    irpfRate = Math.max(irpfRate, item.irpfRate);
    irpf += (net * item.irpfRate) / 100;
    const key = `${item.vatRate}|${item.surchargeRate}`;
    let group = groups.get(key);
    if (!group) {
      group = { taxCode: item.taxCode, vatRate: item.vatRate, surchargeRate: item.surchargeRate, base: 0, vat: 0, surcharge: 0, vatException: item.vatRate === 0 ? item.vatException : null, rawBase: 0, rawVat: 0, rawSurcharge: 0 };
      groups.set(key, group);
    }
    group.rawBase += net;
    group.rawVat += (net * item.vatRate) / 100;
    group.rawSurcharge += (net * item.surchargeRate) / 100;
  }
  const taxes = [...groups.values()].map(({ rawBase, rawVat, rawSurcharge, ...group }) => ({ ...group, base: round(rawBase), vat: round(rawVat), surcharge: round(rawSurcharge) }));
  const sum = (pick: (group: ExportTaxGroup) => number) => round(taxes.reduce((acc, group) => acc + pick(group), 0));
  const net = sum((group) => group.base);
  const vat = sum((group) => group.vat);
  const surcharge = sum((group) => group.surcharge);
  const totals = {
    lineTotal: round(lines.filter((item) => !item.supplied).reduce((acc, item) => acc + item.netAmount, 0)),
    globalDiscount, globalDiscount2, net, vat, surcharge, irpfRate, irpf: round(irpf), supplied: round(supplied),
    total: round(net + vat + surcharge - round(irpf) + round(supplied)),
  };
  return { ...view, lines, taxes, totals };
}

/** A customer invoice F2026A1 of two lines at 21 % and one at 10 %, with one pending receipt. */
export function sampleView(overrides: Partial<ExportView> = {}): ExportView {
  const view: ExportView = {
    type: 'FacturaCliente', kind: 'invoice', side: 'sales', id: 1, code: 'FAC2026A1', number: '1', series: 'A', seriesType: null,
    date: '2026-03-15', time: '10:30:00', dueDate: '2026-04-14', taxPointDate: null, externalNumber: null,
    currency: { code: 'EUR', symbol: '€', decimals: 2 }, editable: false, paid: false, rectifies: null, operation: null,
    observations: 'Entrega en horario de mañana.',
    company: party(),
    subject: party({
      code: 'BETA', name: 'Beta Distribuciones', legalName: 'Beta Distribuciones SA', taxId: 'A58818501', taxIdType: 'CIF', email: 'compras@beta.example',
      address: { street: 'Avenida Diagonal 100', postcode: '08019', city: 'Barcelona', province: 'Barcelona', country: 'ESP', countryIso2: 'ES', countryName: 'España' },
    }),
    logo: null,
    paymentMethod: { code: 'TRANS', description: 'Transferencia bancaria', directDebit: false, iban: 'ES9121000418450200051332', swift: 'CAIXESBBXXX', debitIban: null, mandate: null },
    lines: [], taxes: [], totals: { lineTotal: 0, globalDiscount: 0, globalDiscount2: 0, net: 0, vat: 0, surcharge: 0, irpfRate: 0, irpf: 0, supplied: 0, total: 0 },
    receipts: [],
    format: null,
    lang: 'es',
    fiscalQr: null,
  };
  const built = withLines(view, [
    line(1, { description: 'Tornillos de acero 4x40', quantity: 100, unitPrice: 0.12 }),
    line(2, { description: 'Taladro percutor', quantity: 1, unitPrice: 89.9, discount: 10 }),
    line(3, { reference: null, description: 'Manual de instalación', quantity: 1, unitPrice: 15, taxCode: 'IVA10', vatRate: 10 }),
  ]);
  const merged = { ...built, ...overrides };
  if (!overrides.receipts) merged.receipts = [{ number: 1, amount: merged.totals.total, dueDate: merged.dueDate ?? merged.date, paid: false, paymentDate: null }];
  return merged;
}

/**
 * A realistic invoice (the picture in docs/export.md): eight lines at 21 % and 10 %, discounts, a
 * line without reference, one pending receipt and two lines of observations.
 */
export function exampleInvoiceView(overrides: Partial<ExportView> = {}): ExportView {
  const view = withLines(sampleView({
    code: 'FAC2026A27', number: '27', date: '2026-03-16', dueDate: '2026-04-15', externalNumber: 'PED-0419',
    observations: 'Material entregado en obra (Calle de Colón 18, Valencia) el 16/03/2026.\nGarantía de dos años en herramienta eléctrica; conserve esta factura.',
    company: party({ name: 'Ferretería Ejemplo', legalName: 'Ferretería Ejemplo SL', phone: '910 000 000', email: 'facturas@ferreteria-ejemplo.es', web: 'www.ferreteria-ejemplo.es' }),
    subject: party({
      code: 'C0042', name: 'Reformas Levante', legalName: 'Reformas Levante SL', taxId: 'B97412345', email: 'administracion@reformaslevante.es',
      address: { street: 'Avenida del Puerto 112, nave 4', postcode: '46023', city: 'Valencia', province: 'Valencia', country: 'ESP', countryIso2: 'ES', countryName: 'España' },
    }),
  }), [
    line(1, { reference: 'TORN-440', description: 'Tornillos de acero inoxidable 4x40 mm (caja de 100 unidades)', quantity: 12, unitPrice: 6.45 }),
    line(2, { reference: 'TAL-850', description: 'Taladro percutor 850 W con maletín y juego de 10 brocas', quantity: 2, unitPrice: 89.9, discount: 10 }),
    line(3, { reference: 'ESC-AL3', description: 'Escalera de aluminio de tres peldaños', quantity: 1, unitPrice: 54 }),
    line(4, { reference: 'PINT-15B', description: 'Pintura plástica blanca mate, 15 litros', quantity: 4, unitPrice: 42.5, discount: 5 }),
    line(5, { reference: 'GUA-NIT-L', description: 'Guantes de nitrilo talla L (pack de 50)', quantity: 10, unitPrice: 3.2 }),
    line(6, { reference: 'CIN-50', description: 'Cinta americana gris 50 mm x 25 m', quantity: 6, unitPrice: 4.75 }),
    line(7, { reference: 'SRV-FONT', description: 'Reparación de fontanería en vivienda: sustitución de grifería y desagüe de cocina (mano de obra, 2 horas)', quantity: 2, unitPrice: 32, taxCode: 'IVA10', vatRate: 10 }),
    line(8, { reference: null, description: 'Transporte y entrega en obra', quantity: 1, unitPrice: 35 }),
  ]);
  const merged = { ...view, ...overrides };
  if (!overrides.receipts) merged.receipts = [{ number: 1, amount: merged.totals.total, dueDate: merged.dueDate ?? merged.date, paid: false, paymentDate: null }];
  return merged;
}

/** A sale of `count` lines named `Item 0001` ... (unique, zero-padded), alternating 21 % and 10 %. */
export function manyLinesView(count: number, overrides: Partial<ExportView> = {}, description = (position: number) => `Item ${String(position).padStart(4, '0')}`): ExportView {
  const lines = Array.from({ length: count }, (_, index) => line(index + 1, {
    description: description(index + 1), quantity: (index % 7) + 1, unitPrice: 12.5 + (index % 5),
    ...(index % 3 === 2 ? { taxCode: 'IVA10', vatRate: 10 } : {}),
  }));
  const view = withLines(sampleView(overrides), lines);
  if (!overrides.receipts) view.receipts = [{ number: 1, amount: view.totals.total, dueDate: view.dueDate ?? view.date, paid: false, paymentDate: null }];
  return view;
}

// ---- E-invoice cases (test/einvoice.test.ts): each a consistent view built by `withLines`. ----

/** The view with one pending receipt of its whole total, due on its due date. */
function withOneReceipt(view: ExportView): ExportView {
  return { ...view, receipts: [{ number: 1, amount: view.totals.total, dueDate: view.dueDate ?? view.date, paid: false, paymentDate: null }] };
}

/** Line discounts (single and cascaded) and cascaded global discounts, with amounts that round. */
export function discountedView(): ExportView {
  return withOneReceipt(withLines(sampleView(), [
    line(1, { description: 'Tornillos de acero 4x40', quantity: 333, unitPrice: 0.137, discount: 7.5 }),
    line(2, { description: 'Taladro percutor', quantity: 3, unitPrice: 89.99, discount: 10, discount2: 5 }),
    line(3, { description: 'Manual de instalación', quantity: 7, unitPrice: 1.333, taxCode: 'IVA10', vatRate: 10, discount: 12.5 }),
  ], 5, 2));
}

/** A customer in the equivalence-surcharge regime (21 % + 5.2 %, 10 % + 1.4 %) with 15 % IRPF withheld. */
export function surchargeView(): ExportView {
  return withOneReceipt(withLines(sampleView(), [
    line(1, { description: 'Servicio de instalación', quantity: 3, unitPrice: 45.55, surchargeRate: 5.2, irpfRate: 15 }),
    line(2, { description: 'Material eléctrico', quantity: 12, unitPrice: 3.19, discount: 3, surchargeRate: 5.2, irpfRate: 15 }),
    line(3, { description: 'Revista técnica', quantity: 2, unitPrice: 6.35, taxCode: 'IVA10', vatRate: 10, surchargeRate: 1.4, irpfRate: 15 }),
  ]));
}

/** 21 %, 10 %, 4 % and an exempt 0 % line (`ES_20`). */
export function multiRateView(): ExportView {
  return withOneReceipt(withLines(sampleView(), [
    line(1, { description: 'Herramienta', quantity: 2, unitPrice: 24.95 }),
    line(2, { description: 'Servicio de hostelería', quantity: 1, unitPrice: 18.6, taxCode: 'IVA10', vatRate: 10 }),
    line(3, { description: 'Libro técnico', quantity: 3, unitPrice: 12.4, taxCode: 'IVA4', vatRate: 4 }),
    line(4, { description: 'Curso de formación reglada', quantity: 1, unitPrice: 150, taxCode: 'IVA0', vatRate: 0, vatException: 'ES_20' }),
  ]));
}

/** A refund (rectifying series `R`) of part of an invoice: negative quantities and amounts. */
export function refundView(): ExportView {
  const view = withLines(sampleView({ code: 'FAC2026R1', number: '1', series: 'R', seriesType: 'R', date: '2026-03-20', dueDate: '2026-03-20', rectifies: { code: 'FAC2026A1', date: '2026-03-15' } }), [
    line(1, { description: 'Tornillos de acero 4x40', quantity: -50, unitPrice: 0.12 }),
    line(2, { description: 'Taladro percutor', quantity: -1, unitPrice: 89.9, discount: 10 }),
  ]);
  return withOneReceipt(view);
}

/** A supplier's invoice: the supplier sells, the company buys; the supplier's own number is `externalNumber`. */
export function purchaseView(): ExportView {
  const base = sampleView();
  const view = withLines({
    ...base, type: 'FacturaProveedor', side: 'purchase', code: 'FAC2026A7', number: '7', externalNumber: 'PROV-2026/0042',
    subject: party({
      code: '3', name: 'Suministros Norte', legalName: 'Suministros Norte SL', taxId: 'B95123456', email: 'facturas@norte.example',
      address: { street: 'Gran Vía 12', postcode: '48001', city: 'Bilbao', province: 'Bizkaia', country: 'ESP', countryIso2: 'ES', countryName: 'España' },
    }),
    paymentMethod: { code: 'TRANS', description: 'Transferencia bancaria', directDebit: false, iban: null, swift: null, debitIban: null, mandate: null },
  }, [
    line(1, { description: 'Cable de cobre 2,5 mm (rollo)', quantity: 10, unitPrice: 38.4, discount: 2 }),
    line(2, { description: 'Portes', reference: null, quantity: 1, unitPrice: 12, taxCode: 'IVA21' }),
  ]);
  return { ...view, receipts: [{ number: 1, amount: view.totals.total, dueDate: view.dueDate ?? view.date, paid: true, paymentDate: '2026-03-30' }] };
}

/** Supplied amounts (`suplidos`, outside the tax base) next to taxed lines, with a direct debit. */
export function suppliedView(): ExportView {
  const view = withLines(sampleView({
    paymentMethod: { code: 'DOMIC', description: 'Recibo domiciliado', directDebit: true, iban: null, swift: null, debitIban: 'ES7620770024003102575766', mandate: 'MANDATO-BETA-1' },
  }), [
    line(1, { description: 'Gestión de trámite', quantity: 1, unitPrice: 60 }),
    line(2, { description: 'Tasa registral (suplido)', reference: null, quantity: 1, unitPrice: 25.37, taxCode: null, vatRate: 0, supplied: true }),
    line(3, { description: 'Notaría (suplido)', reference: null, quantity: 1, unitPrice: 41.1, taxCode: null, vatRate: 0, supplied: true }),
  ]);
  return { ...view, receipts: [
    { number: 1, amount: 60, dueDate: '2026-04-14', paid: true, paymentDate: '2026-04-14' },
    { number: 2, amount: round(view.totals.total - 60), dueDate: '2026-05-14', paid: false, paymentDate: null },
  ] };
}

/** An intra-community sale (exempt, `ES_25`) to a French company whose VAT number carries its prefix. */
export function intraCommunityView(): ExportView {
  return withOneReceipt(withLines(sampleView({
    operation: 'intracomunitaria',
    subject: party({
      code: 'FR1', name: 'Quincaillerie Dupont', legalName: 'Quincaillerie Dupont SARL', taxId: 'FR40303265045', taxIdType: 'VAT', email: 'achats@dupont.example',
      address: { street: '12 rue de la Paix', postcode: '75002', city: 'Paris', province: 'Île-de-France', country: 'FRA', countryIso2: 'FR', countryName: 'Francia' },
    }),
  }), [
    line(1, { description: 'Taladro percutor', quantity: 4, unitPrice: 89.9, discount: 5, taxCode: 'IVA0', vatRate: 0, vatException: 'ES_25' }),
    line(2, { description: 'Brocas (juego)', quantity: 10, unitPrice: 7.45, taxCode: 'IVA0', vatRate: 0, vatException: 'ES_25' }),
  ]));
}

/** Operations not subject to Spanish VAT only (`ES_OTHER_NOT_SUBJECT`), bought by a natural person. */
export function notSubjectView(): ExportView {
  return withOneReceipt(withLines(sampleView({
    subject: party({
      code: 'P1', name: 'Ana López García', legalName: 'Ana López García', taxId: '12345678Z', taxIdType: 'NIF', naturalPerson: true, email: 'ana@example.com',
      address: { street: 'Calle Luna 3, 2º B', postcode: '41001', city: 'Sevilla', province: 'Sevilla', country: 'ESP', countryIso2: 'ES', countryName: 'España' },
    }),
    paymentMethod: { code: 'CONT', description: 'Al contado', directDebit: false, iban: null, swift: null, debitIban: null, mandate: null },
  }), [
    line(1, { description: 'Indemnización por resolución de contrato', quantity: 1, unitPrice: 300, taxCode: 'IVA0', vatRate: 0, vatException: 'ES_OTHER_NOT_SUBJECT' }),
  ]));
}
