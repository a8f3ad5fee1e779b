import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

/** Generated codes and references stay unique under concurrency, with no error for the client. */
forEachEngine('generated codes under concurrency', (t) => {
  const create = async (resource: string, body: (i: number) => object, count = 50) =>
    Promise.all(Array.from({ length: count }, (_, i) => t().call('POST', `/api/3/${resource}`, body(i))));

  it('gives 50 concurrent customers, suppliers and products without a code 50 distinct codes each', async () => {
    const [customers, suppliers, products] = await Promise.all([
      create('cliente', (i) => ({ nombre: `Customer ${i}`, cifnif: `C${i}` })),
      create('proveedor', (i) => ({ nombre: `Supplier ${i}`, cifnif: `S${i}` })),
      create('producto', (i) => ({ descripcion: `Product ${i}`, precio: i })),
    ]);
    for (const [answers, key] of [[customers, 'codcliente'], [suppliers, 'codproveedor'], [products, 'referencia']] as const) {
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [201], JSON.stringify(answers.find((a) => a.status !== 201)?.body));
      assert.equal(new Set(answers.map((a) => a.body[key])).size, 50, key);
    }
    // Every product got its main variant with the same reference.
    const references = products.map((p) => p.body.referencia).sort();
    const variants = (await t().call('GET', `/api/3/variante?limit=200`)).body.map((v: { referencia: string }) => v.referencia);
    for (const referencia of references) assert.ok(variants.includes(referencia), referencia);
  });

  it('skips codes a client chose itself, and goes on from the highest numeric code', async () => {
    const taken = await t().call('POST', '/api/3/cliente', { codcliente: '900', nombre: 'Chosen' });
    assert.equal(taken.status, 201);
    const next = await create('cliente', (i) => ({ nombre: `After ${i}` }), 5);
    const codes = next.map((a) => Number(a.body.codcliente));
    assert.ok(codes.every((code) => Number.isInteger(code) && code !== 900), codes.join());
    assert.equal(new Set(codes).size, 5);
  });
});
