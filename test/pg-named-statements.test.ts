import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { isRetryable } from '../src/db/translate-error.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { NamedStatements } from '../src/db/pg-named-statements.ts';
import { forEachEngine } from './helpers/test-app.ts';

/** A pg client as the wrapper sees it: every query fails with `failure`; `prepared` names its connection parsed. */
function failingClient(failure: Error, prepared: Record<string, string>) {
  const calls: Array<{ name?: string }> = [];
  const client = {
    connection: { parsedStatements: prepared },
    getTransactionStatus: () => 'T',
    query: async (config: unknown, _values?: unknown): Promise<unknown> => {
      calls.push(config as { name?: string });
      throw failure;
    },
  };
  return { client, calls };
}

it('names a text from its third run, and renames every text after a stale statement of the current names', async () => {
  const names = new NamedStatements();
  assert.equal(names.nameOf('select $1'), undefined);
  assert.equal(names.nameOf('select $1'), undefined);
  const first = names.nameOf('select $1');
  assert.match(first ?? '', /^s[\w-]{20}_0$/);
  assert.equal(names.nameOf('select $1'), first, 'the same name while nothing is stale');
  // Large statements (a multi-row insert's text changes with its rows) are never named.
  for (let run = 0; run < 5; run++) assert.equal(names.nameOf('insert $1', 300), undefined);

  // A statement this connection had prepared, refused as stale inside a transaction.
  const stale = Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });
  const { client, calls } = failingClient(stale, { [first!]: 'select $1' });
  names.adopt(client);
  await assert.rejects(client.query('select $1', [1]) as Promise<unknown>, (error) => error === stale);
  assert.equal(calls[0]!.name, first);
  assert.equal(calls.length, 1, 'inside a transaction the statement is not run again (the transaction failed with it)');
  assert.ok(isRetryable(stale), 'its transaction runs again');
  assert.equal(names.nameOf('select $1'), first!.replace(/_0$/, '_1'));
});

it('renames nothing for a name its connection never prepared: the failure is another statement\'s consequence', async () => {
  const names = new NamedStatements();
  for (let run = 0; run < 3; run++) names.nameOf('update t set a = $1');
  const name = names.nameOf('update t set a = $1');
  // pg forgets a name whose Parse failed (a transaction aborted by an earlier statement); the next
  // statement of that name fails as "does not exist".
  const missing = Object.assign(new Error(`prepared statement "${name}" does not exist`), { code: '26000' });
  const { client } = failingClient(missing, {});
  names.adopt(client);
  await assert.rejects(client.query('update t set a = $1', [1]) as Promise<unknown>, (error) => error === missing);
  assert.ok(!isRetryable(missing), 'not a stale statement: the transaction is not run again for it');
  assert.equal(names.nameOf('update t set a = $1'), name, 'the names stay');
});

/**
 * PostgreSQL keeps a named statement's plan per connection; a table it reads that changes shape
 * (a schema sync widening a column, here or in another instance) makes the statement fail with
 * "cached plan must not change result type" until it is prepared again. The service renames its
 * statements then: a statement on its own runs again at once, one in a transaction has its
 * transaction run again.
 */
forEachEngine('named statements after a change of schema', (t) => {
  const db = () => t().app.ctx.database.kysely;
  const read = (kysely = db()) => kysely.selectFrom('t_named' as never).selectAll().where('id' as never, '=', 1 as never).execute() as Promise<Array<{ id: number; amount: unknown }>>;

  it('a statement prepared before a column changed type runs after it, alone and in a transaction', async () => {
    await sql`create table t_named (id integer primary key, amount integer not null)`.execute(db());
    await sql`insert into t_named values (1, 7)`.execute(db());
    // Prepared (named from its third run) on the connections the pool hands out.
    for (let run = 0; run < 8; run += 1) assert.deepEqual(await read(), [{ id: 1, amount: 7 }]);

    await sql`alter table t_named alter column amount type text`.execute(db());
    assert.deepEqual(await read(), [{ id: 1, amount: '7' }], 'alone: run again under a new name');
    for (let run = 0; run < 8; run += 1) await read();

    await sql`alter table t_named alter column amount type numeric(10, 2) using amount::numeric`.execute(db());
    let runs = 0;
    const rows = await inTransaction(t().app.ctx.database, async (trx) => {
      runs += 1;
      return read(trx);
    });
    assert.deepEqual(rows, [{ id: 1, amount: 7 }]);
    assert.equal(runs, 2, 'the transaction that met the stale statement ran again');
    await sql`drop table t_named`.execute(db());
  });
}, { engines: ['postgres'] });

/**
 * What PG_PREPARED_STATEMENTS does on the connection itself: on, a text run three times is a
 * prepared statement of the session (pg_prepared_statements); off (a pooler that does not keep
 * them), the service prepares nothing.
 */
for (const named of [true, false]) {
  forEachEngine(`PG_PREPARED_STATEMENTS=${named ? 'on' : 'off'}`, (t) => {
    it(named ? 'prepares a frequent statement once on its connection' : 'prepares nothing', async () => {
      const prepared = await inTransaction(t().app.ctx.database, async (trx) => {
        for (let run = 0; run < 5; run++) await trx.selectFrom('api_state').select('name').where('name', '=', `probe-${run}`).execute();
        // One connection for the whole transaction: its session's statements.
        const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${'%api_state%'}`.execute(trx);
        return rows.map((row) => row.statement);
      });
      if (named) assert.equal(prepared.length, 1, JSON.stringify(prepared));
      else assert.deepEqual(prepared, []);
    });
  }, { engines: ['postgres'], config: { pgPreparedStatements: named } });
}
