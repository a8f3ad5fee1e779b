import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine, startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/eventually.ts';

/**
 * X-Total-Count is kept per model and filter (src/db/count-cache.ts) and must never be behind a
 * write of this instance, whatever path wrote (the API, a use case, a raw statement, a cascade from
 * a referenced table), nor behind another instance's write for longer than STATE_REFRESH_MS.
 */
const REFRESH_MS = 200;

async function total(t: TestApp, query: string): Promise<number> {
  const answer = await t.call('GET', `/api/3/cliente?${query}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return Number(answer.headers['x-total-count']);
}

async function created(t: TestApp, url: string, body: Record<string, unknown>): Promise<any> {
  const answer = await t.call('POST', url, body);
  assert.equal(answer.status, 201, `${url}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

forEachEngine('list totals kept between writes', (t) => {
  const byName = 'filter[nombre_like]=counted&limit=1';

  it('follows creations, updates and deletions through the API at once', async () => {
    assert.equal(await total(t(), byName), 0);
    await created(t(), '/api/3/cliente', { codcliente: 'CNT1', nombre: 'Counted one' });
    assert.equal(await total(t(), byName), 1);
    await created(t(), '/api/3/cliente', { codcliente: 'CNT2', nombre: 'Counted two' });
    assert.equal(await total(t(), byName), 2);
    // The same total asked twice with nothing written between: the same answer.
    assert.equal(await total(t(), byName), 2);
    assert.equal((await t().call('PATCH', '/api/3/cliente/CNT2', { nombre: 'Renamed' })).status, 200);
    assert.equal(await total(t(), byName), 1);
    assert.equal((await t().call('DELETE', '/api/3/cliente/CNT1')).status, 200);
    assert.equal(await total(t(), byName), 0);
    // A filter told apart from another by its value only has its own total.
    assert.equal(await total(t(), 'filter[nombre_like]=renamed&limit=1'), 1);
  });

  it('follows a statement that bypasses the store, and a cascade from a referenced table', async () => {
    const db = t().app.ctx.database.kysely;
    const before = await total(t(), 'filter[nombre_like]=raw&limit=1');
    await db.insertInto('clientes').values({ codcliente: 'RAW1', nombre: 'Raw insert', cifnif: '' }).execute();
    assert.equal(await total(t(), 'filter[nombre_like]=raw&limit=1'), before + 1);
    await db.deleteFrom('clientes').where('codcliente', '=', 'RAW1').execute();
    assert.equal(await total(t(), 'filter[nombre_like]=raw&limit=1'), before);

    await created(t(), '/api/3/grupoclientes', { codgrupo: 'CNTG', nombre: 'Counted group' });
    await created(t(), '/api/3/cliente', { codcliente: 'CNT3', nombre: 'In a group', codgrupo: 'CNTG' });
    assert.equal(await total(t(), 'filter[codgrupo]=CNTG'), 1);
    // Deleting the group empties the customers' codgrupo (ON DELETE SET NULL) in the database.
    assert.equal((await t().call('DELETE', '/api/3/grupoclientes/CNTG')).status, 200);
    assert.equal(await total(t(), 'filter[codgrupo]=CNTG'), 0);
  });

  it('sees another instance\'s writes within the refresh interval', async () => {
    const url = t().databaseUrl;
    const other = await startTestApp(t().engine, { url, config: { stateRefreshMs: REFRESH_MS } });
    try {
      const query = 'filter[nombre_like]=elsewhere&limit=1';
      assert.equal(await total(t(), query), 0);
      assert.equal(await total(other, query), 0);
      await created(t(), '/api/3/cliente', { codcliente: 'ELS1', nombre: 'Written elsewhere' });
      assert.equal(await total(t(), query), 1);
      // Within the refresh interval, or twenty times what the count took when that is longer (a
      // count slowed by a busy machine is kept longer): docs/query-syntax.md.
      await new Promise((resolve) => setTimeout(resolve, REFRESH_MS + 50));
      await eventually(async () => assert.equal(await total(other, query), 1), 5000);
    } finally {
      // Closed here: the suite's database is dropped before any later hook of this file.
      await other.close();
    }
  });
});
