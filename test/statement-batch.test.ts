import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { StatementBatch } from '../src/db/statement-batch.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * A batch (src/db/statement-batch.ts) sends its statements in one round trip on PostgreSQL
 * (pipelined) and MariaDB (one multi-statement query), runs them in order (a later one reads what
 * an earlier one wrote), answers each its own result, and fails whole at the first failing one:
 * nothing after it runs, and the transaction rolls back.
 */
forEachEngine('statement batches', (t) => {
  const read = (name: string) => t().app.ctx.database.kysely.selectFrom('api_state').select('version').where('name', '=', name).executeTakeFirst();

  it('runs its statements in order, in one round trip on the server engines, each with its own result', async () => {
    const { database } = t().app.ctx;
    const { counter } = database;
    const trips: number[] = [];
    const result = await inTransaction(database, async (trx) => {
      const batch = new StatementBatch(trx, database.engine);
      const inserted = batch.add(trx.insertInto('api_state').values({ name: 'batch-a', version: 1 }));
      const updated = batch.add(trx.updateTable('api_state').set({ version: sql`version + 41` }).where('name', '=', 'batch-a'));
      const selected = batch.add(trx.selectFrom('api_state').select(['name', 'version']).where('name', '=', 'batch-a'));
      // Background jobs share the counter: only this batch's statements are looked at.
      counter.observer = (query, roundTrip) => void (query.sql.includes('api_state') && trips.push(roundTrip));
      try {
        await batch.flush();
      } finally {
        counter.observer = undefined;
      }
      assert.equal(trips.length, 3, 'each statement counted');
      assert.equal(new Set(trips).size, database.engine === 'sqlite' ? 3 : 1, 'one round trip on the server engines');
      assert.equal(Number((await updated).numAffectedRows), 1);
      await inserted;
      return (await selected).rows;
    });
    assert.deepEqual(result.map((row) => [row.name, Number(row.version)]), [['batch-a', 42]]);
    assert.equal(Number((await read('batch-a'))?.version), 42);
  });

  it('stops at the first failing statement: its promise and the flush reject, nothing after it is written', async () => {
    const { database } = t().app.ctx;
    let duplicate: Promise<unknown> | undefined;
    await assert.rejects(inTransaction(database, async (trx) => {
      const batch = new StatementBatch(trx, database.engine);
      void batch.add(trx.insertInto('api_state').values({ name: 'batch-b', version: 1 }));
      duplicate = batch.add(trx.insertInto('api_state').values({ name: 'batch-a', version: 7 }));
      void batch.add(trx.insertInto('api_state').values({ name: 'batch-c', version: 1 }));
      await batch.flush();
    }, { attempts: 1 }));
    await assert.rejects(duplicate!);
    assert.equal(await read('batch-b'), undefined, 'rolled back');
    assert.equal(await read('batch-c'), undefined, 'never run');
    assert.equal(Number((await read('batch-a'))?.version), 42, 'untouched');
  });

  it('answers an empty flush at once, and a single statement as any query', async () => {
    const { database } = t().app.ctx;
    const rows = await inTransaction(database, async (trx) => {
      const batch = new StatementBatch(trx, database.engine);
      await batch.flush();
      const one = batch.add(trx.selectFrom('api_state').select('name').where('name', '=', 'batch-a'));
      assert.equal(batch.size, 1);
      await batch.flush();
      assert.equal(batch.size, 0);
      return (await one).rows;
    });
    assert.deepEqual(rows, [{ name: 'batch-a' }]);
  });
}, { config: { stateRefreshMs: 60_000 } });
