import assert from 'node:assert/strict';
import { it } from 'node:test';
import { calculateDocument } from '../../src/modules/documents/calculation/calculate.ts';
import { roundNumber } from '../../src/models/round.ts';
import type { CalcContext, CalcDocument, CalcLine, DocumentTotals, TaxInfo } from '../../src/modules/documents/calculation/types.ts';

const TAXES: TaxInfo[] = [
  { codimpuesto: 'IVA0', iva: 0, recargo: 0, tipo: 1 },
  { codimpuesto: 'IVA4', iva: 4, recargo: 0.5, tipo: 1 },
  { codimpuesto: 'IVA10', iva: 10, recargo: 1.4, tipo: 1 },
  { codimpuesto: 'IVA21', iva: 21, recargo: 5.2, tipo: 1 },
  { codimpuesto: 'IVA20', iva: 20, recargo: 0, tipo: 1 },
  { codimpuesto: 'IVA19', iva: 19, recargo: 0, tipo: 1 },
  { codimpuesto: 'FIX5', iva: 5, recargo: 1, tipo: 2 },
];

function context(overrides: Partial<CalcContext> = {}): CalcContext {
  return {
    decimals: 2,
    method: 'classic',
    serie: { siniva: false, tipo: null },
    company: { codpais: 'ESP', regimeniva: 'General' },
    subject: { regimeniva: 'General', excepcioniva: null },
    taxes: new Map(TAXES.map((tax) => [tax.codimpuesto, tax])),
    zones: [],
    ...overrides,
  };
}

const doc = (overrides: Partial<CalcDocument> = {}): CalcDocument => ({ side: 'sales', dtopor1: 0, dtopor2: 0, operacion: null, codpais: 'ESP', provincia: null, ...overrides });

/** A line `cantidad` x `pvpunitario` at a tax (its iva and recargo as the tax table says unless given). */
function line(cantidad: number, pvpunitario: number, codimpuesto: string | null = 'IVA21', extra: Partial<CalcLine> = {}): CalcLine {
  const tax = TAXES.find((t) => t.codimpuesto === codimpuesto);
  return {
    cantidad, pvpunitario, dtopor: 0, dtopor2: 0, codimpuesto, iva: tax?.iva ?? 0, recargo: tax?.recargo ?? 0,
    irpf: 0, suplido: false, coste: 0, excepcioniva: null, productType: null, ...extra,
  };
}

type Case = { name: string; doc?: Partial<CalcDocument>; ctx?: Partial<CalcContext>; lines: CalcLine[]; expect: Partial<DocumentTotals>; lineChecks?: Array<[number, Partial<Record<string, unknown>>]> };

const surchargeCustomer = { subject: { regimeniva: 'Recargo', excepcioniva: null } };

const CASES: Case[] = [
  // facturascripts-model.md 5.1 (CalculatorTest)
  { name: '5.1.1 empty document', lines: [], expect: { neto: 0, netosindto: 0, totaliva: 0, total: 0, totalcoste: 0, totalbeneficio: 0 } },
  { name: '5.1.1 one empty line', lines: [line(0, 0)], expect: { neto: 0, total: 0 }, lineChecks: [[0, { pvpsindto: 0, pvptotal: 0 }]] },
  {
    name: '5.1.2 plain lines',
    lines: [line(1, 100), line(2, 10, 'IVA4', { coste: 3 })],
    expect: { neto: 120, netosindto: 120, totaliva: 21.8, total: 141.8, totalcoste: 6, totalbeneficio: 114, totalrecargo: 0 },
    lineChecks: [[1, { pvpsindto: 20, pvptotal: 20, recargo: 0 }]],
  },
  {
    name: '5.1.3 line and document discounts',
    doc: { dtopor1: 5, dtopor2: 3 },
    lines: [line(1, 100), line(2, 10, 'IVA4', { dtopor: 10, dtopor2: 5 })],
    expect: { neto: 107.91, netosindto: 117.1, totaliva: 19.98, total: 127.89 },
    lineChecks: [[1, { pvptotal: 17.1 }]],
  },
  { name: '5.1.4 full line discount', lines: [line(1, 100, 'IVA21', { coste: 50, dtopor: 100 })], expect: { neto: 0, totaliva: 0, total: 0, totalcoste: 50 } },
  {
    name: '5.1.5 retention',
    lines: [line(1, 100, 'IVA21', { irpf: 15 }), line(2, 10, 'IVA4', { irpf: 15 }), line(5, 11, 'IVA21')],
    expect: { neto: 175, totaliva: 33.35, totalirpf: 18, total: 190.35, irpf: 15 },
  },
  {
    name: '5.1.6 customer in surcharge regime',
    ctx: surchargeCustomer,
    lines: [line(1, 100), line(2, 10), line(5, 11, 'IVA21', { recargo: 0 })],
    expect: { neto: 175, totaliva: 36.75, totalrecargo: 6.24, total: 217.99 },
  },
  {
    name: '5.1.7 supplier in surcharge regime, purchase quote',
    doc: { side: 'purchase' },
    ctx: surchargeCustomer,
    lines: [line(2, 100)],
    expect: { neto: 200, totaliva: 42, totalrecargo: 10.4, total: 252.4 },
  },
  {
    name: '5.1.8 suplidos',
    lines: [line(3, 50), line(1, 20, 'IVA21', { suplido: true }), line(2, 15, 'IVA21', { suplido: true })],
    expect: { neto: 150, totaliva: 31.5, totalsuplidos: 50, total: 231.5 },
  },
  { name: '5.1.9 tax-free serie', ctx: { serie: { siniva: true, tipo: null } }, lines: [line(1, 100), line(2, 10, 'IVA4')], expect: { neto: 120, totaliva: 0, total: 120 }, lineChecks: [[0, { codimpuesto: 'IVA0', iva: 0 }]] },
  { name: '5.1.10 exempt customer', ctx: { subject: { regimeniva: 'Exento', excepcioniva: 'ES_20' } }, lines: [line(1, 100)], expect: { totaliva: 0, total: 100 }, lineChecks: [[0, { excepcioniva: 'ES_20' }]] },
  { name: '5.1.10 exempt supplier, purchase', doc: { side: 'purchase' }, ctx: { subject: { regimeniva: 'Exento', excepcioniva: null } }, lines: [line(1, 100)], expect: { totaliva: 0, total: 100 } },
  {
    name: '5.1.11 tax zones: higher priority wins',
    doc: { codpais: 'AND' },
    ctx: { zones: [
      { codimpuesto: 'IVA20', codimpuestosel: null, codpais: 'AND', provincia: null, excepcioniva: null, prioridad: 2 },
      { codimpuesto: 'IVA20', codimpuestosel: 'IVA19', codpais: 'AND', provincia: null, excepcioniva: null, prioridad: 1 },
    ] },
    lines: [line(1, 100, 'IVA20')],
    expect: { totaliva: 0, total: 100 },
  },
  {
    name: '5.1.11 tax zone of another country not applied',
    ctx: { zones: [{ codimpuesto: 'IVA21', codimpuestosel: null, codpais: 'AND', provincia: null, excepcioniva: null, prioridad: 2 }] },
    lines: [line(1, 100)],
    expect: { total: 121 },
  },
  { name: '5.1.12 fixed-value tax', lines: [line(3, 100, 'FIX5', { recargo: 0 }), line(2, 50, 'FIX5', { recargo: 0 })], expect: { neto: 400, totaliva: 25, total: 425 } },
  { name: '5.1.12 fixed-value tax with surcharge', ctx: surchargeCustomer, lines: [line(3, 100, 'FIX5'), line(2, 50, 'FIX5')], expect: { totaliva: 25, totalrecargo: 5, total: 430 } },
  { name: '5.1.13 price with tax 10.00 at IVA21, classic', lines: [line(1, 8.26446, 'IVA21', { recargo: 0 })], expect: { total: 10 } },
  { name: '5.1.13 price with tax 10.00 at IVA21, price-adjusted', ctx: { method: 'price-adjusted' }, lines: [line(1, 8.26446, 'IVA21', { recargo: 0 })], expect: { total: 10 } },
  { name: '5.1.13 0.65 at IVA10, classic', lines: [line(1, 0.59091, 'IVA10', { recargo: 0 })], expect: { total: 0.65 } },
  { name: '5.1.13 0.65 at IVA4, classic gives 0.66', lines: [line(1, 0.625, 'IVA4', { recargo: 0 })], expect: { neto: 0.63, totaliva: 0.03, total: 0.66 } },
  { name: '5.1.13 0.65 at IVA4, price-adjusted gives 0.65', ctx: { method: 'price-adjusted' }, lines: [line(1, 0.625, 'IVA4', { recargo: 0 })], expect: { total: 0.65 } },
  // facturascripts-model.md 5.2 (CalculatorModSpainTest)
  { name: '5.2 intra-community sale', doc: { operacion: 'intracomunitaria' }, lines: [line(1, 100)], expect: { total: 100 }, lineChecks: [[0, { codimpuesto: 'IVA0', iva: 0, recargo: 0, excepcioniva: 'ES_25' }]] },
  { name: '5.2 intra-community purchase', doc: { side: 'purchase', operacion: 'intracomunitaria' }, lines: [line(1, 100)], expect: { totaliva: 0, total: 100 }, lineChecks: [[0, { iva: 21, recargo: 0, excepcioniva: 'ES_84' }]] },
  { name: '5.2 intra-community services sale', doc: { operacion: 'intracom-servicios' }, lines: [line(1, 100)], expect: { total: 100 }, lineChecks: [[0, { excepcioniva: 'ES_68_70' }]] },
  { name: '5.2 intra-community services purchase', doc: { side: 'purchase', operacion: 'intracom-servicios' }, lines: [line(1, 100)], expect: { total: 100 }, lineChecks: [[0, { iva: 21, excepcioniva: 'ES_84' }]] },
  { name: '5.2 reverse charge sale', doc: { operacion: 'inv-sujeto-pasivo' }, lines: [line(1, 100)], expect: { total: 100 }, lineChecks: [[0, { iva: 0, excepcioniva: 'ES_84' }]] },
  { name: '5.2 reverse charge purchase', doc: { side: 'purchase', operacion: 'inv-sujeto-pasivo' }, lines: [line(1, 100)], expect: { total: 100 }, lineChecks: [[0, { iva: 21, excepcioniva: 'ES_84' }]] },
  { name: '5.2 export sale', doc: { operacion: 'exportacion' }, lines: [line(1, 100)], expect: { total: 100 }, lineChecks: [[0, { iva: 0, excepcioniva: 'ES_21' }]] },
  { name: '5.2 import purchase', doc: { side: 'purchase', operacion: 'importacion' }, lines: [line(1, 100)], expect: { total: 100 } },
  { name: '5.2 export on a purchase has no effect', doc: { side: 'purchase', operacion: 'exportacion' }, lines: [line(1, 100)], expect: { totaliva: 21, total: 121 } },
  { name: '5.2 import on a sale has no effect', doc: { operacion: 'importacion' }, lines: [line(1, 100)], expect: { totaliva: 21, total: 121 } },
  { name: '5.2 gold regime customer', ctx: { subject: { regimeniva: 'Oro', excepcioniva: null } }, lines: [line(1, 100)], expect: { total: 100 }, lineChecks: [[0, { iva: 0, excepcioniva: 'ES_OTHER' }]] },
  { name: '5.2 agrarian supplier', doc: { side: 'purchase' }, ctx: { subject: { regimeniva: 'Agrario', excepcioniva: null } }, lines: [line(1, 100)], expect: { totaliva: 21, totalrecargo: 0, total: 121 }, lineChecks: [[0, { recargo: 0, excepcioniva: 'ES_OTHER' }]] },
  { name: '5.2 used goods purchase', doc: { side: 'purchase' }, ctx: { company: { codpais: 'ESP', regimeniva: 'Bienes usados' } }, lines: [line(1, 900, 'IVA21', { productType: 'Segunda mano' })], expect: { totaliva: 0, total: 900 } },
  { name: '5.2 used goods sale', ctx: { company: { codpais: 'ESP', regimeniva: 'Bienes usados' } }, lines: [line(1, 200, 'IVA21', { coste: 150, productType: 'Segunda mano' })], expect: { neto: 200, totaliva: 10.5, total: 210.5 } },
  { name: '5.3 used goods sale 1200 over 900', ctx: { company: { codpais: 'ESP', regimeniva: 'Bienes usados' } }, lines: [line(1, 1200, 'IVA21', { coste: 900, productType: 'Segunda mano' })], expect: { neto: 1200, totaliva: 63, total: 1263 } },
  { name: '5.2 used goods, normal product', ctx: { company: { codpais: 'ESP', regimeniva: 'Bienes usados' } }, lines: [line(1, 200, 'IVA21', { coste: 150, productType: 'Normal' })], expect: { totaliva: 42, total: 242 } },
  { name: '5.2 used goods, negative margin', ctx: { company: { codpais: 'ESP', regimeniva: 'Bienes usados' } }, lines: [line(1, 80, 'IVA21', { coste: 100, productType: 'Segunda mano' })], expect: { totaliva: 0, total: 80 } },
  { name: '5.2 used goods, rectifying serie', ctx: { company: { codpais: 'ESP', regimeniva: 'Bienes usados' }, serie: { siniva: false, tipo: 'R' } }, lines: [line(-1, 200, 'IVA21', { coste: 150, productType: 'Segunda mano' })], expect: { neto: -200, totaliva: -10.5, total: -210.5 } },
  { name: '5.2 travel agency sale', ctx: { company: { codpais: 'ESP', regimeniva: 'Agencias de viaje' } }, lines: [line(1, 200, 'IVA21', { coste: 120 })], expect: { totaliva: 16.8, total: 216.8 } },
  { name: '5.2 travel agency, negative margin', ctx: { company: { codpais: 'ESP', regimeniva: 'Agencias de viaje' } }, lines: [line(1, 80, 'IVA21', { coste: 100 })], expect: { totaliva: 0, total: 80 } },
  { name: '5.2 travel agency, rectifying', ctx: { company: { codpais: 'ESP', regimeniva: 'Agencias de viaje' }, serie: { siniva: false, tipo: 'R' } }, lines: [line(-1, 200, 'IVA21', { coste: 120 })], expect: { neto: -200, totaliva: -16.8, total: -216.8 } },
  { name: '5.2 travel agency purchase is normal', doc: { side: 'purchase' }, ctx: { company: { codpais: 'ESP', regimeniva: 'Agencias de viaje' } }, lines: [line(1, 100, 'IVA21', { coste: 80 })], expect: { totaliva: 21, total: 121 } },
  { name: '5.2 surcharge company purchase', doc: { side: 'purchase' }, ctx: { company: { codpais: 'ESP', regimeniva: 'Recargo' } }, lines: [line(2, 100)], expect: { totaliva: 42, totalrecargo: 10.4, total: 252.4 } },
  { name: '5.2 intra-community purchase, several rates', doc: { side: 'purchase', operacion: 'intracomunitaria' }, lines: [line(1, 100), line(1, 50, 'IVA10')], expect: { neto: 150, totaliva: 0, total: 150 } },
  // facturascripts-model.md 5.3 (FacturaClienteTest)
  { name: '5.3 3 x 66.1', lines: [line(3, 66.1)], expect: { neto: 198.3 } },
  { name: '5.3 surcharge customer 1 x 200', ctx: surchargeCustomer, lines: [line(1, 200)], expect: { neto: 200, totaliva: 42, totalrecargo: 10.4, total: 252.4 } },
  { name: '5.3 surcharge company, normal customer', ctx: { company: { codpais: 'ESP', regimeniva: 'Recargo' } }, lines: [line(1, 30.07)], expect: { totaliva: 6.31, totalrecargo: 0, total: 36.38 } },
  { name: '5.3 surcharge company buying 2 x 50', doc: { side: 'purchase' }, ctx: { company: { codpais: 'ESP', regimeniva: 'Recargo' } }, lines: [line(2, 50)], expect: { totaliva: 21, totalrecargo: 5.2, total: 126.2 } },
  // edge cases
  { name: 'negative quantities (a refund)', lines: [line(-3, 19.99), line(-1, 0.01, 'IVA4')], expect: { neto: -59.98, totaliva: -12.59, total: -72.57 } },
  { name: '100% document discount', doc: { dtopor1: 100 }, lines: [line(2, 50)], expect: { neto: 0, totaliva: 0, total: 0 } },
  {
    name: 'many lines of cents that drift with binary floats',
    lines: Array.from({ length: 1000 }, () => line(1, 0.1)),
    expect: { neto: 100, totaliva: 21, total: 121 },
  },
  { name: 'half-cent VAT rounds half away from zero', lines: [line(1, 0.5, 'IVA21', { recargo: 0 })], expect: { neto: 0.5, totaliva: 0.11, total: 0.61 } },
  { name: 'IRPF not rounded per group', lines: [line(1, 10.01, 'IVA21', { irpf: 15 }), line(1, 10.01, 'IVA4', { irpf: 15 })], expect: { totalirpf: 3, totaliva: 2.5 } },
  { name: 'a company outside Spain keeps the surcharge as sent', ctx: { company: { codpais: 'PRT', regimeniva: 'General' } }, lines: [line(1, 100)], expect: { totaliva: 21, totalrecargo: 5.2 } },
];

it('calculates every scenario of the reference to the cent (table)', () => {
  for (const c of CASES) {
    const result = calculateDocument(doc(c.doc), c.lines, context(c.ctx));
    for (const [key, value] of Object.entries(c.expect)) assert.equal(result.totals[key as keyof DocumentTotals], value, `${c.name}: ${key}`);
    const parts = result.totals.neto + result.totals.totalsuplidos + result.totals.totaliva + result.totals.totalrecargo - result.totals.totalirpf;
    assert.ok(Math.abs(result.totals.total - parts) < 0.006, `${c.name}: total agrees with its parts`);
    for (const [index, checks] of c.lineChecks ?? []) {
      for (const [key, value] of Object.entries(checks)) assert.deepEqual((result.lines[index] as unknown as Record<string, unknown>)[key], value, `${c.name}: line ${index} ${key}`);
    }
  }
});

it('rounds like PHP 8.2 (15 significant digits, then half away from zero)', () => {
  const cases: Array<[number, number, number]> = [
    [1.005, 2, 1.01], [0.285, 2, 0.29], [2.675, 2, 2.68], [-0.625, 2, -0.63], [19.3515, 2, 19.35], [0.630306, 2, 0.63],
    [1.4999999999999999, 0, 2], [-0, 2, 0], [8.264462809917, 5, 8.26446], [100, 2, 100],
  ];
  for (const [value, decimals, expected] of cases) assert.equal(roundNumber(value, decimals), expected, `round(${value}, ${decimals})`);
  assert.ok(Object.is(roundNumber(-0.001, 2), 0), 'no negative zero');
});
