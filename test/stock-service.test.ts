import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

/** Stock written through the generic resource settles like stock moved by documents. */
forEachEngine('stock written directly', (t) => {
  const totals = async () => {
    const product = (await t().call('GET', '/api/3/producto?filter[referencia]=STK')).body[0];
    const variant = (await t().call('GET', '/api/3/variante?filter[referencia]=STK')).body[0];
    return { product: product.stockfis, variant: variant.stockfis };
  };
  before(async () => {
    assert.equal((await t().call('POST', '/api/3/producto', { referencia: 'STK', precio: 3 })).status, 201);
    assert.equal((await t().call('POST', '/api/3/almacen', { codalmacen: 'W2', nombre: 'Second' })).status, 201);
  });

  it('keeps the product and variant stockfis and the row disponible right on create, update and delete', async () => {
    const first = await t().call('POST', '/api/3/stock', { referencia: 'STK', codalmacen: 'ALG', cantidad: 10, reservada: 4 });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.disponible, 6);
    assert.ok(first.body.idproducto > 0, 'the product comes from the variant');
    assert.deepEqual(await totals(), { product: 10, variant: 10 });
    const second = await t().call('POST', '/api/3/stock', { referencia: 'STK', codalmacen: 'W2', cantidad: 2.5 });
    assert.deepEqual(await totals(), { product: 12.5, variant: 12.5 });
    const updated = await t().call('PATCH', `/api/3/stock/${first.body.idstock}`, { cantidad: 3, reservada: 5 });
    assert.deepEqual([updated.status, updated.body.disponible], [200, 0]);
    assert.deepEqual(await totals(), { product: 5.5, variant: 5.5 });
    assert.equal((await t().call('DELETE', `/api/3/stock/${second.body.idstock}`)).status, 200);
    assert.deepEqual(await totals(), { product: 3, variant: 3 });
    // disponible is the service's to compute.
    assert.equal((await t().call('PATCH', `/api/3/stock/${first.body.idstock}`, { disponible: 99 })).status, 422);
  });

  it('agrees with documents moving the same stock', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'STKC', nombre: 'Stock customer' });
    const note = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'STKC', lineas: [{ referencia: 'STK', cantidad: 2 }] });
    assert.equal(note.status, 200, JSON.stringify(note.body));
    assert.deepEqual(await totals(), { product: 1, variant: 1 });
    const [row] = (await t().call('GET', '/api/3/stock?filter[referencia]=STK&filter[codalmacen]=ALG')).body;
    assert.deepEqual([row.cantidad, row.disponible], [1, 0]);
  });
});
