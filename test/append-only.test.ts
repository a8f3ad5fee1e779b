import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { syncSchema } from '../src/db/schema-sync.ts';
import { translateDbError } from '../src/db/translate-error.ts';
import { AppError } from '../src/errors.ts';
import { defineModel } from '../src/models/define-model.ts';
import { f } from '../src/models/fields.ts';
import { ModelRegistry } from '../src/models/registry.ts';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * Append-only tables (db/append-only.ts): the store refuses deleting a row and changing a kept
 * field; the database's own triggers refuse the same to plain SQL (a plugin's, say), and a second
 * sync leaves them alone.
 */
const ledger = defineModel({
  name: 'TestLedger',
  table: 't_ledger',
  appendOnly: { mutable: ['state'] },
  fields: {
    id: f.serial(),
    amount: f.string(20, { notNull: true }),
    note: f.string(40),
    state: f.string(20, { values: ['new', 'sent'], default: 'new' }),
  },
});

/** The AppError a raw statement's failure becomes, or the raw error when it is not one. */
async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return translateDbError(error, 'update') ?? error;
  }
  return undefined;
}

forEachEngine('append-only tables', (t) => {
  it('keeps a row as written through the store, and lets only the mutable fields change', async () => {
    const { store } = t().app.ctx;
    const { record } = await store.create(ledger, { amount: '12.50', note: 'first' });
    await assert.rejects(store.update(ledger, record.id!, { amount: '99.00' }), (error) => error instanceof AppError && error.code === 'record-immutable');
    await assert.rejects(store.update(ledger, record.id!, { state: 'sent', note: 'sneaky' }), (error) => error instanceof AppError && error.code === 'record-immutable');
    await assert.rejects(store.remove(ledger, record.id!), (error) => error instanceof AppError && error.code === 'record-immutable');
    const moved = await store.update(ledger, record.id!, { state: 'sent' });
    assert.deepEqual([moved.amount, moved.note, moved.state], ['12.50', 'first', 'sent']);
    // The field's vocabulary holds.
    await assert.rejects(store.update(ledger, record.id!, { state: 'lost' }), (error) => error instanceof AppError && error.code === 'validation-failed' && (error.details as any).fields.state === 'invalid-value');
  });

  it('refuses UPDATE and DELETE of kept columns in plain SQL, whatever the statement', async () => {
    const { store, database } = t().app.ctx;
    const db = database.kysely;
    const { record } = await store.create(ledger, { amount: '1.00', note: 'kept' });
    const id = record.id as number;
    for (const statement of [
      () => db.updateTable('t_ledger').set({ amount: '2.00' }).where('id', '=', id).execute(),
      () => db.updateTable('t_ledger').set({ note: null }).where('id', '=', id).execute(),
      () => db.updateTable('t_ledger').set({ id: id + 1000 }).where('id', '=', id).execute(),
      () => db.deleteFrom('t_ledger').where('id', '=', id).execute(),
      () => db.deleteFrom('t_ledger').execute(),
    ]) {
      const error = await refusal(statement);
      assert.ok(error instanceof AppError && error.code === 'record-immutable', String(error));
    }
    // Each engine's way of replacing a row in one statement.
    const replace = {
      sqlite: sql`INSERT OR REPLACE INTO t_ledger (id, amount, note, state) VALUES (${id}, '9.99', 'forged', 'new')`,
      postgres: sql`INSERT INTO t_ledger (id, amount, note, state) VALUES (${id}, '9.99', 'forged', 'new') ON CONFLICT (id) DO UPDATE SET amount = EXCLUDED.amount`,
      mysql: sql`REPLACE INTO t_ledger (id, amount, note, state) VALUES (${id}, '9.99', 'forged', 'new')`,
    }[database.engine];
    const replaced = await refusal(() => replace.execute(db));
    assert.ok(replaced instanceof AppError && replaced.code === 'record-immutable', String(replaced));
    if (database.engine === 'mysql') {
      const upsert = await refusal(() => sql`INSERT INTO t_ledger (id, amount, note, state) VALUES (${id}, '9.99', 'forged', 'new') ON DUPLICATE KEY UPDATE amount = VALUES(amount)`.execute(db));
      assert.ok(upsert instanceof AppError && upsert.code === 'record-immutable', String(upsert));
    }
    if (database.engine === 'postgres') {
      const error = await refusal(() => sql`TRUNCATE t_ledger`.execute(db));
      assert.ok(error instanceof AppError && error.code === 'record-immutable', String(error));
    }
    // A mutable column, and an update that changes nothing kept, go through.
    await db.updateTable('t_ledger').set({ state: 'sent' }).where('id', '=', id).execute();
    await db.updateTable('t_ledger').set({ amount: '1.00' }).where('id', '=', id).execute();
    const row = await db.selectFrom('t_ledger').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual([row.amount, row.note, row.state], ['1.00', 'kept', 'sent']);
  });

  it('creates its triggers once: a second sync finds them in place', async () => {
    const { database, registry } = t().app.ctx;
    const again = await syncSchema(database, new ModelRegistry(registry.models));
    assert.deepEqual(again.createdTriggers, []);
  });

  it('widens a guarded column (PostgreSQL refuses to while a trigger names it) and guards it again', async () => {
    const { database, registry, store } = t().app.ctx;
    const wider = { ...ledger, fields: { ...ledger.fields, amount: f.string(40, { notNull: true }) } };
    const report = await syncSchema(database, new ModelRegistry([...registry.models.filter((model) => model !== ledger), wider]));
    assert.ok(report.alteredColumns?.includes('t_ledger.amount') || report.rebuiltTables.includes('t_ledger'), JSON.stringify(report));
    assert.equal(report.createdTriggers?.length, database.engine === 'mysql' ? 2 : 3);
    const { record } = await store.create(wider, { amount: '1'.repeat(40) });
    const error = await refusal(() => database.kysely.updateTable('t_ledger').set({ amount: '0' }).where('id', '=', record.id as number).execute());
    assert.ok(error instanceof AppError && error.code === 'record-immutable', String(error));
  });
}, { models: [ledger] });
