import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * The planner's statistics follow the tables as they grow (issue 28, item 3): on SQLite nothing
 * re-analyzed once, so a table analyzed while small kept its small-table plan for ever. The
 * `database-statistics` job (hourly, and at close) runs `PRAGMA optimize`.
 */
forEachEngine('planner statistics', (t) => {
  it('re-analyzes a table that grew and was used, when the statistics job runs', async () => {
    const db = t().app.ctx.database.kysely;
    const rowsOf = async () => {
      const found = await sql<{ stat: string }>`SELECT stat FROM sqlite_stat1 WHERE tbl = 'clientes' AND idx IS NOT NULL`.execute(db).catch(() => ({ rows: [] }));
      return Math.max(0, ...found.rows.map((row) => Number(row.stat.split(' ')[0])));
    };
    const before = await rowsOf();
    for (let created = 0; created < 400; created++) {
      assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: `S${created}`, nombre: `Cliente ${created}` })).status, 201);
    }
    // The connection uses the table (PRAGMA optimize looks only at tables it queried).
    assert.equal((await t().call('GET', '/api/3/cliente?filter[nombre_like]=Cliente 1&limit=5')).status, 200);
    await t().app.runJob('database-statistics');
    const after = await rowsOf();
    assert.ok(after >= 400, `statistics count ${after} rows of clientes (were ${before})`);
  });
}, { engines: ['sqlite'] });
