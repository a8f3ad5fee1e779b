import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

/** Limits declared once on the fields hold on every write path: amounts stay finite and sensible. */
forEachEngine('amount and percentage limits on every write path', (t) => {
  let invoice: { idfactura: number; total: number };
  let line: { idlinea: number };
  before(async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'LIM', nombre: 'Limits' });
    const created = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'LIM', lineas: [{ descripcion: 'x', cantidad: 1, pvpunitario: 100 }] });
    assert.equal(created.status, 200);
    invoice = created.body.doc;
    line = created.body.lines[0];
  });

  type Ids = { invoice: number; line: number };
  const cases: Array<[string, string, (ids: Ids) => string, (ids: Ids) => object, string]> = [
    ['generic line create', 'POST', () => '/api/3/lineafacturacliente', (ids) => ({ idfactura: ids.invoice, pvpunitario: 1e308, descripcion: 'x' }), 'pvpunitario'],
    ['generic line update', 'PATCH', (ids) => `/api/3/lineafacturacliente/${ids.line}`, () => ({ pvpunitario: 1e308 }), 'pvpunitario'],
    ['generic line quantity', 'PATCH', (ids) => `/api/3/lineafacturacliente/${ids.line}`, () => ({ cantidad: -1e13 }), 'cantidad'],
    ['line discount over 100 %', 'PATCH', (ids) => `/api/3/lineafacturacliente/${ids.line}`, () => ({ dtopor: 150 }), 'dtopor'],
    ['negative line tax', 'PATCH', (ids) => `/api/3/lineafacturacliente/${ids.line}`, () => ({ iva: -21 }), 'iva'],
    ['header discount over 100 %', 'PATCH', (ids) => `/api/3/facturacliente/${ids.invoice}`, () => ({ dtopor1: 150 }), 'dtopor1'],
    ['header IRPF overflow', 'PATCH', (ids) => `/api/3/facturacliente/${ids.invoice}`, () => ({ irpf: 1e308 }), 'irpf'],
    ['creation line price', 'POST', () => '/api/3/crearFacturaCliente', () => ({ codcliente: 'LIM', lineas: [{ descripcion: 'x', pvpunitario: 1e13 }] }), 'lineas[0].pvpunitario'],
    ['creation header discount', 'POST', () => '/api/3/crearFacturaCliente', () => ({ codcliente: 'LIM', dtopor1: -5 }), 'dtopor1'],
    ['edit endpoint line', 'PUT', (ids) => `/api/3/editarFacturaCliente/${ids.invoice}`, (ids) => ({ lineas: [{ idlinea: ids.line, dtopor2: 101 }] }), 'lineas[0].dtopor2'],
    ['product price', 'POST', () => '/api/3/producto', () => ({ referencia: 'HUGE', precio: 1e300 }), 'precio'],
    ['a vanishing conversion rate on a document', 'PATCH', (ids) => `/api/3/facturacliente/${ids.invoice}`, () => ({ tasaconv: 1e-300 }), 'tasaconv'],
    ['a negative conversion rate on a currency', 'POST', () => '/api/3/divisa', () => ({ coddivisa: 'NEG', descripcion: 'Negative', tasaconv: -1 }), 'tasaconv'],
    ['a vanishing purchase rate on a currency', 'POST', () => '/api/3/divisa', () => ({ coddivisa: 'TNY', descripcion: 'Tiny', tasaconv: 1, tasaconvcompra: 1e-300 }), 'tasaconvcompra'],
    ['explicit id 0', 'POST', () => '/api/3/apikey', () => ({ id: 0, description: 'zero' }), 'id'],
  ];

  for (const [name, method, url, body, field] of cases) {
    it(`refuses ${name} with 422 out-of-range and changes nothing`, async () => {
      const ids = { invoice: invoice.idfactura, line: line.idlinea };
      const answer = await t().call(method, url(ids), body(ids));
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.fields[field], 'out-of-range', JSON.stringify(answer.body));
      const stored = (await t().call('GET', `/api/3/facturacliente/${invoice.idfactura}`)).body;
      assert.equal(stored.total, invoice.total);
      const [receipt] = (await t().call('GET', `/api/3/recibocliente?filter[idfactura]=${invoice.idfactura}`)).body;
      assert.equal(receipt.importe, invoice.total);
    });
  }

  it('still accepts the extremes of each range, and filters may compare beyond them', async () => {
    assert.equal((await t().call('PATCH', `/api/3/lineafacturacliente/${line.idlinea}`, { dtopor: 100 })).status, 200);
    assert.equal((await t().call('GET', `/api/3/facturacliente/${invoice.idfactura}`)).body.total, 0);
    assert.equal((await t().call('PATCH', `/api/3/lineafacturacliente/${line.idlinea}`, { dtopor: 0, pvpunitario: 1e12 })).status, 200);
    assert.equal((await t().call('GET', '/api/3/facturacliente?filter[total_gt]=1e15')).status, 200);
    assert.equal((await t().call('GET', '/api/3/facturacliente/0')).status, 404);
  });
});
