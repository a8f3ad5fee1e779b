import assert from 'node:assert/strict';
import { it } from 'node:test';
import { boxes303 } from '../../src/modules/taxforms/modelo303.ts';

/** The 303's box rules (pure): each case the grouped rows of a period and the boxes they give. */
const row = (fields: Record<string, unknown>) => ({ operacion: '', rect: 0, abroad: 0, iva: 21, recargo: 0, autoliquidada: 0, base: 0, cuota: 0, cuotarecargo: 0, ...fields });

const cases: Array<{ name: string; sales?: Array<Record<string, unknown>>; purchases?: Array<Record<string, unknown>>; carried?: number; boxes: Record<string, number>; avisos?: string[] }> = [
  {
    name: 'a credit note with surcharge: 14/15 and 25/26, not the rate boxes',
    sales: [row({ rect: 1, recargo: 5.2, base: -100, cuota: -21, cuotarecargo: -5.2 })],
    boxes: { 14: -100, 15: -21, 25: -100, 26: -5.2, '07': 0, 22: 0, 27: -26.2, 46: -26.2, 71: -26.2 },
  },
  {
    name: 'a credit note of an intra-EU acquisition: 14/15 and 40/41',
    purchases: [row({ rect: 1, operacion: 'intracomunitaria', autoliquidada: 1, base: -50, cuota: -10.5 })],
    boxes: { 14: -50, 15: -10.5, 40: -50, 41: -10.5, 10: 0, 27: -10.5, 45: -10.5, 46: 0 },
  },
  {
    name: 'carried quotas offset a positive result up to it, the rest stays pending',
    sales: [row({ base: 1000, cuota: 210 })], purchases: [row({ base: 500, cuota: 105 })], carried: 30000,
    boxes: { 46: 105, 66: 105, 110: 300, 78: 105, 87: 195, 69: 0, 71: 0 },
  },
  {
    name: 'carried quotas do not touch a negative result',
    purchases: [row({ base: 100, cuota: 21 })], carried: 5000,
    boxes: { 46: -21, 110: 50, 78: 0, 87: 50, 71: -21 },
  },
  {
    name: 'amounts summed in cents: 0.1 + 0.2',
    sales: [row({ iva: 10, base: 0.1, cuota: 0.01 }), row({ iva: 10, abroad: 1, base: 0.2, cuota: 0.02 })],
    boxes: { '04': 0.3, '06': 0.03, 27: 0.03 },
  },
  {
    name: 'what no box takes is listed: a 3 % rate, an import',
    sales: [row({ iva: 3, base: 10, cuota: 0.3 })], purchases: [row({ operacion: 'importacion', iva: 0, base: 900 })],
    boxes: { 27: 0 }, avisos: ['rate-without-box', 'imports-not-covered'],
  },
  {
    name: 'credit notes of exempt or 0 % operations modify no VAT: not in 14 nor 40',
    sales: [row({ rect: 1, iva: 0, base: -100 }), row({ rect: 1, iva: 0, abroad: 1, base: -50 })], purchases: [row({ rect: 1, iva: 0, base: -100 })],
    boxes: { 14: 0, 40: 0, 120: -50, 28: 0 },
  },
  {
    name: 'a 0 % sale abroad is not subject (120); at home exempt (no box)',
    sales: [row({ iva: 0, abroad: 1, base: 400 }), row({ iva: 0, base: 70 })],
    boxes: { 120: 400, 150: 0, 27: 0 },
  },
];

it('assigns the boxes as the reference says, summed in cents', () => {
  for (const test of cases) {
    const { casillas, avisos } = boxes303(test.sales ?? [], test.purchases ?? [], test.carried ?? 0);
    for (const [name, value] of Object.entries(test.boxes)) assert.equal(casillas[name], value, `${test.name}: box ${name}`);
    assert.deepEqual(avisos.map((warning) => warning.motivo), test.avisos ?? [], test.name);
  }
});
