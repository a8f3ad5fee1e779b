import assert from 'node:assert/strict';
import { it } from 'node:test';
import pg from 'pg';
import mysql from 'mysql2/promise';
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

  it('continues from the highest numeric code on first use, then skips codes a client chose itself', async () => {
    // Agents: a table no test here has generated a code for yet.
    assert.equal((await t().call('POST', '/api/3/agente', { codagente: '500', nombre: 'Chosen' })).status, 201);
    const first = await t().call('POST', '/api/3/agente', { nombre: 'Generated' });
    assert.equal(first.body.codagente, '501');
    for (const codagente of ['502', '503']) assert.equal((await t().call('POST', '/api/3/agente', { codagente, nombre: 'Chosen' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/agente', { nombre: 'Generated' })).body.codagente, '504');
    // Far ahead: one jump, not a walk through every taken code.
    assert.equal((await t().call('POST', '/api/3/agente', { codagente: '505', nombre: 'Chosen' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/agente', { codagente: '9000', nombre: 'Chosen' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/agente', { nombre: 'Generated' })).body.codagente, '9001');
  });
});

/**
 * A client inserting the very code the counter hands out next, in a transaction not yet committed:
 * the generated creation waits for it, collides, and goes on with the next code (no 409).
 */
forEachEngine('generated codes against an uncommitted client code', (t) => {
  it('takes the next code instead of failing', async () => {
    const probe = await t().call('POST', '/api/3/fabricante', { nombre: 'Probe' });
    assert.equal(probe.status, 201);
    const next = String(Number(probe.body.codfabricante) + 1);
    const url = new URL(t().app.ctx.config.databaseUrl);
    const commitLater = async (run: (sqlText: string) => Promise<unknown>, begin: string, commit: string) => {
      await run(begin);
      await run(`INSERT INTO fabricantes (codfabricante, nombre) VALUES ('${next}', 'Client')`);
      const generated = t().call('POST', '/api/3/fabricante', { nombre: 'Generated' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await run(commit);
      return generated;
    };
    let answer;
    if (t().engine === 'postgres') {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        answer = await commitLater((text) => client.query(text), 'BEGIN', 'COMMIT');
      } finally {
        await client.end();
      }
    } else {
      const connection = await mysql.createConnection(url.toString());
      try {
        answer = await commitLater((text) => connection.query(text), 'START TRANSACTION', 'COMMIT');
      } finally {
        await connection.end();
      }
    }
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.codfabricante, String(Number(next) + 1));
  });
}, { engines: ['postgres', 'mysql'] });
