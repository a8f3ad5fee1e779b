import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { afterCommit, afterRollback, inOneTransaction, inTransaction } from '../src/db/transaction.ts';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * One transaction for a whole flow (src/db/pinned-transaction.ts, atomic batches): plain reads see
 * the flow's writes, transactions inside are savepoints whose failure undoes only their own work,
 * after-commit work waits for the real commit, and a rollback undoes everything, with the undo work
 * of the transactions that had committed inside it. Other flows see nothing until the commit.
 */
forEachEngine('pinned transaction', (t) => {
  const db = () => t().app.ctx.database;
  const rows = async () => (await db().kysely.selectFrom('pin_probe').select('n').orderBy('n').execute()).map((row) => Number(row.n));
  // The suite's database is its own (dropped with it).
  before(async () => {
    await sql`CREATE TABLE pin_probe (n integer NOT NULL)`.execute(db().kysely);
  });

  it('commits the flow together; a failed savepoint undoes only its own work; after-commit work waits for the commit', async () => {
    await sql`DELETE FROM pin_probe`.execute(db().kysely);
    const ran: string[] = [];
    const seenInside = await inOneTransaction(db(), async () => {
      await db().kysely.insertInto('pin_probe').values({ n: 1 }).execute();
      await assert.rejects(inTransaction(db(), async (trx) => {
        await trx.insertInto('pin_probe').values({ n: 2 }).execute();
        afterCommit(trx, () => ran.push('never'));
        throw new Error('refused');
      }), /refused/);
      // A statement the database refuses inside a savepoint (PostgreSQL aborts the transaction): undone to the savepoint, the flow goes on.
      await assert.rejects(inTransaction(db(), (trx) => sql`INSERT INTO pin_probe_missing (n) VALUES (1)`.execute(trx)));
      await inTransaction(db(), async (trx) => {
        await trx.insertInto('pin_probe').values({ n: 3 }).execute();
        afterCommit(trx, () => ran.push('committed'));
      });
      assert.deepEqual(ran, [], 'not before the flow commits');
      return rows();
    });
    assert.deepEqual(seenInside, [1, 3], 'plain reads see the flow\'s own writes');
    assert.deepEqual(ran, ['committed']);
    assert.deepEqual(await rows(), [1, 3]);
  });

  it('rolls the whole flow back, running the undo work of what had committed inside it', async () => {
    await sql`DELETE FROM pin_probe`.execute(db().kysely);
    const ran: string[] = [];
    await assert.rejects(inOneTransaction(db(), async () => {
      await inTransaction(db(), async (trx) => {
        await trx.insertInto('pin_probe').values({ n: 4 }).execute();
        afterCommit(trx, () => ran.push('committed'));
        afterRollback(trx, () => void ran.push('undone'));
      });
      await db().kysely.insertInto('pin_probe').values({ n: 5 }).execute();
      throw new Error('the flow fails');
    }), /the flow fails/);
    assert.deepEqual(ran, ['undone']);
    assert.deepEqual(await rows(), []);
  });

  it('never commits a transaction the flow left running after the pinned transaction ended', async () => {
    // [yields before the flow ends, the flow fails, what the stray transaction does, rows after]
    const cases: Array<[boolean, boolean, 'committed' | 'refused', number[]]> = [
      [false, false, 'refused', [1]], // not begun when the flow returned: refused, the flow commits alone
      [true, false, 'committed', [1, 2]], // begun: it ends before the pinned commit, and commits with it
      [true, true, 'committed', []], // begun, then the flow fails: rolled back with it, never auto-committed
    ];
    for (const [yields, fails, expected, after] of cases) {
      await sql`DELETE FROM pin_probe`.execute(db().kysely);
      let stray!: Promise<unknown>;
      const flow = inOneTransaction(db(), async () => {
        await db().kysely.insertInto('pin_probe').values({ n: 1 }).execute();
        stray = inTransaction(db(), async (trx) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          await trx.insertInto('pin_probe').values({ n: 2 }).execute();
        });
        stray.catch(() => undefined);
        if (yields) await new Promise((resolve) => setImmediate(resolve));
        if (fails) throw new Error('the flow fails');
      });
      if (fails) await assert.rejects(flow, /the flow fails/);
      else await flow;
      const outcome = await stray.then(() => 'committed', (error: Error) => (/is ending/.test(error.message) ? 'refused' : error.message));
      assert.equal(outcome, expected, `yields ${yields}, fails ${fails}`);
      assert.deepEqual(await rows(), after, `yields ${yields}, fails ${fails}`);
    }
    // The connection went back: a transaction of its own writes again.
    await inTransaction(db(), (trx) => trx.insertInto('pin_probe').values({ n: 3 }).execute());
    assert.deepEqual(await rows(), [3]);
  });

  it('keeps its writes from other flows until it commits (SQLite: another flow waits for the commit)', async () => {
    await sql`DELETE FROM pin_probe`.execute(db().kysely);
    const sqlite = t().engine === 'sqlite';
    let go!: () => void;
    const started = new Promise<void>((resolve) => {
      go = resolve;
    });
    // Started outside the pinned flow: it reads on a connection of its own (SQLite: in its turn).
    let done = false;
    const outside = (async () => {
      await started;
      const seen = await rows();
      done = true;
      return seen;
    })();
    await inOneTransaction(db(), async () => {
      await db().kysely.insertInto('pin_probe').values({ n: 6 }).execute();
      go();
      if (!sqlite) assert.deepEqual(await outside, [], 'another flow does not see the uncommitted row');
      else {
        await new Promise((resolve) => setTimeout(resolve, 30));
        assert.equal(done, false, 'another flow waits for the commit');
      }
    });
    assert.deepEqual(await outside, sqlite ? [6] : []);
    assert.deepEqual(await rows(), [6]);
  });
});
