import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { deferToCommit, StatementBatch } from '../src/db/statement-batch.ts';
import { commitTail, inTransaction } from '../src/db/transaction.ts';
import { isUniqueViolation } from '../src/db/translate-error.ts';
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

  it('sends statements with the COMMIT: written with it, and a failing one fails the commit and writes nothing', async () => {
    const { database } = t().app.ctx;
    const trips: number[] = [];
    await inTransaction(database, async (trx) => {
      assert.ok(commitTail(trx), 'a transaction of its own may carry statements with its commit');
      await trx.insertInto('api_state').values({ name: 'tail-a', version: 1 }).execute();
      await deferToCommit(trx, [trx.insertInto('api_state').values({ name: 'tail-b', version: 2 })]);
      database.counter.observer = (query, roundTrip) => void ((query.sql.includes('api_state') || /^commit/i.test(query.sql.trim())) && trips.push(roundTrip));
    }).finally(() => (database.counter.observer = undefined));
    assert.equal(Number((await read('tail-b'))?.version), 2, 'written with the commit');
    if (database.engine !== 'sqlite') assert.equal(new Set(trips).size, 1, `the deferred insert and the COMMIT in one round trip: ${trips}`);

    const failure = await inTransaction(database, async (trx) => {
      await trx.insertInto('api_state').values({ name: 'tail-c', version: 1 }).execute();
      // A duplicate key: refused at the commit, after everything else in the transaction ran.
      await deferToCommit(trx, [trx.insertInto('api_state').values({ name: 'tail-a', version: 9 })]);
    }, { attempts: 1 }).then(() => undefined, (error: unknown) => error);
    assert.ok(isUniqueViolation(failure) || (failure instanceof Error && isUniqueViolation(failure.cause)), `the deferred statement's own error: ${String(failure)}`);
    assert.equal(await read('tail-c'), undefined, 'rolled back with it');
    assert.equal(Number((await read('tail-a'))?.version), 1, 'untouched');

    // A transaction that rolls back sends nothing it deferred, now or with a later commit.
    await assert.rejects(inTransaction(database, async (trx) => {
      await deferToCommit(trx, [trx.insertInto('api_state').values({ name: 'tail-e', version: 5 })]);
      throw new Error('refused');
    }, { attempts: 1 }), /refused/);
    for (let i = 0; i < 3; i++) await inTransaction(database, async (trx) => void (await trx.selectFrom('api_state').select('name').where('name', '=', 'tail-a').execute()));
    assert.equal(await read('tail-e'), undefined, 'a rolled back transaction\'s deferred statement never runs');

    // The connection is clean for what comes next (nothing left to send with a later commit).
    await inTransaction(database, async (trx) => void (await trx.insertInto('api_state').values({ name: 'tail-d', version: 4 }).execute()));
    assert.equal(Number((await read('tail-d'))?.version), 4);
    assert.equal(Number((await read('tail-a'))?.version), 1);
  });
}, { config: { stateRefreshMs: 60_000 } });
