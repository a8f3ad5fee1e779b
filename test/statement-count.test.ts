import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * What a document costs the database: reference data comes from caches, lines are built, computed
 * and inserted together, stock moves in a few statements for all lines. A regression here is a
 * throughput regression on every engine.
 */
forEachEngine('statements per document', (t) => {
  before(async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'STMT', nombre: 'Statements' });
    for (let i = 1; i <= 5; i++) assert.equal((await t().call('POST', '/api/3/producto', { referencia: `ST${i}`, precio: 10 * i, ventasinstock: true })).status, 201);
    // A first invoice warms the caches and creates the fiscal year and sequence.
    assert.equal((await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'STMT', lineas: [{ referencia: 'ST1' }] })).status, 200);
  });

  // 26: the VERI*FACTU switch of the invoice's company is read in the invoice's transaction (a switch
  // made on another instance a moment ago must never be missed: no invoice without its record).
  // 42 with its accounting entry (issue 26: chart, taxes', products' and retention's sub-accounts,
  // the year's entry-number lock, entry and lines, balances and the invoice's idasiento, 16 in all).
  it('creates a 5-line invoice with stock, receipt, totals and its accounting entry in at most 42 statements', async () => {
    const { counter } = t().app.ctx.database;
    const start = counter.statements;
    const answer = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'STMT', lineas: [1, 2, 3, 4, 5].map((i) => ({ referencia: `ST${i}`, cantidad: i })) });
    const used = counter.statements - start;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.lines.length, 5);
    // Totals to the cent: 10+40+90+160+250 = 550 net, 21 % VAT.
    assert.deepEqual([answer.body.doc.neto, answer.body.doc.totaliva, answer.body.doc.total], [550, 115.5, 665.5]);
    assert.ok(used <= 42, `${used} statements`);
    assert.equal(typeof answer.body.doc.idasiento, 'number');
    // Adding lines costs no statement per line.
    const more = counter.statements;
    await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'STMT', lineas: Array.from({ length: 20 }, (_, i) => ({ referencia: `ST${(i % 5) + 1}` })) });
    assert.equal(counter.statements - more, used);
  });

  it('lists invoices with their page and count only, while no company has a VERI*FACTU switch', async () => {
    const { counter } = t().app.ctx.database;
    await t().call('GET', '/api/3/facturacliente?limit=10');
    const start = counter.statements;
    const answer = await t().call('GET', '/api/3/facturacliente?limit=10&filter[codcliente]=STMT');
    assert.equal(answer.status, 200);
    assert.ok(answer.body.length >= 2);
    assert.ok(counter.statements - start <= 2, `${counter.statements - start} statements`);
  });
}, {
  // The counter counts every connection: background jobs (shared state, access) stay quiet meanwhile.
  config: { stateRefreshMs: 60_000 },
});
