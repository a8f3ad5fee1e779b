import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

async function setup(t: TestApp) {
  assert.equal((await t.call('POST', '/api/3/cliente', { codcliente: 'BETA', nombre: 'Beta Trading', cifnif: 'B2' })).status, 201);
  assert.equal((await t.call('POST', '/api/3/proveedor', { codproveedor: 'SUP1', nombre: 'Supplier One', cifnif: 'B7' })).status, 201);
  const product = await t.call('POST', '/api/3/producto', { referencia: 'STK', descripcion: 'Stocked', precio: 10, ventasinstock: false, codimpuesto: 'IVA21' });
  assert.equal(product.status, 201);
  await t.call('POST', '/api/3/stock', { referencia: 'STK', idproducto: product.body.idproducto, codalmacen: 'ALG', cantidad: 100 });
}

const stockOf = async (t: TestApp, referencia = 'STK') => Number((await t.call('GET', `/api/3/stock?filter[referencia]=${referencia}&filter[codalmacen]=ALG`)).body[0]?.cantidad ?? 0);

forEachEngine('document lifecycle', (t) => {
  before(async () => setup(t()));

  it('pays and unpays an invoice with two receipts, recording a payment per receipt each time', async () => {
    const created = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'x', pvpunitario: 100 }] });
    const invoice = created.body.doc;
    assert.equal(invoice.total, 121);
    const [first] = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoice.idfactura}`)).body;
    assert.equal((await t().call('PATCH', `/api/3/recibocliente/${first.idrecibo}`, { importe: 100 })).status, 200);
    const second = await t().call('POST', '/api/3/recibocliente', {
      codcliente: 'BETA', idempresa: 1, idfactura: invoice.idfactura, importe: 21, numero: 2, fecha: invoice.fecha, vencimiento: '2099-01-01', codpago: 'CONT', coddivisa: 'EUR',
    });
    assert.equal(second.status, 201, JSON.stringify(second.body));

    const paid = await t().call('POST', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: true, fechapago: '20-11-2026', codpago: 'TRANS' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.ok, 'record-updated');
    assert.equal(paid.body.data.pagada, true);
    const receipts = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoice.idfactura}&sort[numero]=ASC`)).body;
    assert.deepEqual(receipts.map((r: any) => [r.importe, r.pagado, r.fechapago, r.codpago]), [[100, true, '2026-11-20', 'TRANS'], [21, true, '2026-11-20', 'TRANS']]);
    const payments = async () => (await t().call('GET', `/api/3/pagocliente?filter[idrecibo]=${receipts[0].idrecibo}`)).body;
    assert.deepEqual((await payments()).map((p: any) => p.importe), [100]);

    const again = await t().call('PUT', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: '1' });
    assert.deepEqual([again.status, again.body.ok], [200, 'no-changes']);

    const unpaid = await t().call('PUT', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: false });
    assert.deepEqual([unpaid.status, unpaid.body.data.pagada], [200, false]);
    const after = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoice.idfactura}&sort[numero]=ASC`)).body;
    assert.deepEqual(after.map((r: any) => [r.pagado, r.fechapago]), [[false, null], [false, null]]);
    assert.deepEqual((await payments()).map((p: any) => p.importe), [100, -100]);
    const all = (await t().call('GET', '/api/3/pagocliente?limit=1000')).body.filter((p: any) => after.some((r: any) => r.idrecibo === p.idrecibo));
    assert.equal(all.length, 4, 'two receipts, paid then unpaid');
  });

  it('answers payment errors: missing flag 400, unknown invoice 404, other methods 405', async () => {
    const invoice = (await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'SUP1', lineas: [{ descripcion: 'y', pvpunitario: 10 }] })).body.doc;
    assert.deepEqual((await t().call('POST', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`, { fechapago: '2026-01-01' })).body, { status: 'error', message: 'missing-pagada-parameter' });
    assert.equal((await t().call('POST', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`, { pagada: 'maybe' })).status, 422);
    assert.deepEqual((await t().call('POST', '/api/3/pagarFacturaProveedor/999999', { pagada: true })).body, { status: 'error', message: 'record-not-found' });
    assert.equal((await t().call('GET', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`)).status, 405);
    assert.equal((await t().call('POST', '/api/3/pagarFacturaProveedor', { pagada: true })).status, 404);
    const paid = await t().call('POST', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`, { pagada: 'yes' });
    assert.deepEqual([paid.status, paid.body.data.pagada], [200, true]);
  });
});
