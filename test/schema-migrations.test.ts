import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { columnType } from '../src/db/column-sql.ts';
import { createDatabase, type DbExecutor, type Engine } from '../src/db/database.ts';
import { readLiveColumns, readLiveConstraints } from '../src/db/live-schema.ts';
import { SchemaChangeRefusedError, syncSchema, type Migration, type SyncReport } from '../src/db/schema-sync.ts';
import { defineModel, type Model } from '../src/models/define-model.ts';
import { f } from '../src/models/fields.ts';
import { ModelRegistry } from '../src/models/registry.ts';
import { enabledEngines, scratchDatabase } from './helpers/engines.ts';

/**
 * Versioned migrations around the schema sync, column type changes, and the sync's transaction,
 * on every configured engine. The sync is called directly (no app): what is tested is the
 * database each step leaves behind.
 */

async function sync(url: string, models: Model[], migrations: Migration[] = []): Promise<SyncReport> {
  const database = createDatabase(url);
  try {
    return await syncSchema(database, new ModelRegistry(models), migrations);
  } finally {
    await database.close();
  }
}

async function withDb<T>(url: string, fn: (db: DbExecutor, engine: Engine) => Promise<T>): Promise<T> {
  const database = createDatabase(url);
  try {
    return await fn(database.kysely, database.engine);
  } finally {
    await database.close();
  }
}

/** The live schema of some tables: column -> type (as the registry spells types). */
async function liveTypes(url: string, table: string): Promise<Record<string, string> | undefined> {
  return withDb(url, async (db, engine) => {
    const columns = (await readLiveColumns(db, engine)).get(table);
    return columns && Object.fromEntries([...columns].sort(([a], [b]) => a.localeCompare(b)));
  });
}

const recorded = (url: string) =>
  withDb(url, async (db) => (await db.selectFrom('schema_migrations').select('id').orderBy('id').execute()).map((row) => row.id as string));

function assertNothingChanged(report: SyncReport): void {
  assert.deepEqual(
    [report.createdTables, report.addedColumns, report.rebuiltTables, report.appliedMigrations, report.alteredColumns, report.skippedMigrations],
    [[], [], [], [], [], []],
  );
}

const widenV1 = defineModel({
  name: 'Widen',
  table: 't_widen',
  indexes: [['label']],
  fields: { id: f.serial(), label: f.string(10, { notNull: true, default: 'none' }), qty: f.integer(), code: f.integer(), note: f.string(20) },
});
const widenV2 = defineModel({
  name: 'Widen',
  table: 't_widen',
  indexes: [['label']],
  fields: { id: f.serial(), label: f.string(40, { notNull: true, default: 'none' }), qty: f.double(), code: f.string(20), note: f.text() },
});
const widenLine = defineModel({
  name: 'WidenLine',
  table: 't_widen_line',
  fields: { id: f.serial(), idwiden: f.integer({ notNull: true, references: f.ref('t_widen', 'id', 'CASCADE') }) },
});

const renameV1 = defineModel({ name: 'Rename', table: 't_rename', fields: { id: f.serial(), title: f.string(20, { notNull: true, default: '' }) } });
const renameV2 = defineModel({
  name: 'Rename',
  table: 't_rename',
  fields: { id: f.serial(), name: f.string(20, { notNull: true, default: '' }), name_length: f.integer() },
});
const renameMigrations: Migration[] = [
  // Listed out of order on purpose: each phase runs in id order, before-sync ones first.
  { id: '0002-fill-length', up: async (db) => void (await db.updateTable('t_rename').set({ name_length: sql`LENGTH(name)` }).execute()) },
  { id: '0001-rename-title', phase: 'before-sync', up: async (db) => void (await sql`ALTER TABLE t_rename RENAME COLUMN title TO name`.execute(db)) },
];

const atomicV1 = defineModel({ name: 'Atomic', table: 't_atomic', fields: { id: f.serial(), label: f.string(10), kind: f.string(5) } });
const atomicV2 = defineModel({
  name: 'Atomic',
  table: 't_atomic',
  fields: { id: f.serial(), label: f.string(40), kind: f.string(5), extra: f.integer({ default: 1 }) },
});
const atomicNew = defineModel({ name: 'AtomicNew', table: 't_atomic_new', fields: { id: f.serial() } });

/** Every field type and option the DSL has: a second sync must find each column exactly as declared. */
const everyType = defineModel({
  name: 'EveryType',
  table: 't_every_type',
  unique: [['code', 'day']],
  fields: {
    code: f.string(12, { primary: true }),
    n: f.integer({ notNull: true, default: 0 }),
    amount: f.double({ default: 0 }),
    rate: f.percent(),
    flag: f.boolean({ notNull: true, default: true }),
    label: f.string(255, { unique: true }),
    body: f.text(),
    day: f.date(),
    at: f.time(),
    stamp: f.timestamp(),
    data: f.json(),
    idwiden: f.integer({ references: f.ref('t_widen', 'id', 'SET NULL') }),
  },
});

const narrowV1 = defineModel({ name: 'Narrow', table: 't_narrow', fields: { id: f.serial(), label: f.string(40), amount: f.double() } });
const narrowV2 = defineModel({
  name: 'Narrow',
  table: 't_narrow',
  fields: { id: f.serial(), label: f.string(10), amount: f.integer(), added: f.string(5) },
});

for (const engine of enabledEngines()) {
  describe(`schema migrations and column types [${engine}]`, () => {
    it('widens columns (longer varchar, integer to double, integer to varchar, varchar to text) keeping rows, nullability and defaults', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        await sync(scratch.url, [widenV1, widenLine]);
        await withDb(scratch.url, async (db) => {
          await db.insertInto('t_widen').values([
            { label: 'short', qty: 3, code: 123, note: 'n1' },
            { label: '0123456789', qty: -7, code: null, note: null },
            { label: 'gone', qty: 0, code: 0, note: null },
          ]).execute();
          await db.deleteFrom('t_widen').where('id', '=', 3).execute();
          await db.insertInto('t_widen_line').values({ idwiden: 2 }).execute();
        });

        const report = await sync(scratch.url, [widenV2, widenLine]);
        assert.deepEqual(report.alteredColumns!.sort(), ['t_widen.code', 't_widen.label', 't_widen.note', 't_widen.qty']);
        assert.deepEqual([report.createdTables, report.addedColumns], [[], []]);
        assert.deepEqual(report.rebuiltTables, engine === 'sqlite' ? ['t_widen'] : []);
        assert.deepEqual(await liveTypes(scratch.url, 't_widen'), {
          code: columnType(engine, f.string(20)),
          id: engine === 'postgres' ? 'INTEGER' : columnType(engine, f.integer()),
          label: columnType(engine, f.string(40)),
          note: columnType(engine, f.text()),
          qty: columnType(engine, f.double()),
        });

        await withDb(scratch.url, async (db) => {
          assert.deepEqual(await db.selectFrom('t_widen').selectAll().orderBy('id').execute(), [
            { id: 1, label: 'short', qty: 3, code: '123', note: 'n1' },
            { id: 2, label: '0123456789', qty: -7, code: null, note: null },
          ]);
          // Longer values fit now; the old key counter, the default and NOT NULL are kept.
          const long = { label: 'L'.repeat(40), qty: 2.5, code: 'ABC-123', note: 'n'.repeat(1000) };
          await db.insertInto('t_widen').values(long).execute();
          await db.insertInto('t_widen').values({ qty: 1 }).execute();
          assert.deepEqual(await db.selectFrom('t_widen').selectAll().where('id', '>', 2).orderBy('id').execute(), [
            { id: 4, ...long },
            { id: 5, label: 'none', qty: 1, code: null, note: null },
          ]);
          await assert.rejects(db.insertInto('t_widen').values({ label: null }).execute());
          // The referencing table still points at its row, and its key is still enforced.
          assert.deepEqual(await db.selectFrom('t_widen_line').selectAll().execute(), [{ id: 1, idwiden: 2 }]);
          await assert.rejects(db.insertInto('t_widen_line').values({ idwiden: 999 }).execute());
          const constraints = await readLiveConstraints(db, engine);
          assert.ok(constraints.has('ix_t_widen_label'), 'the index on the widened column is still there');
        });

        assertNothingChanged(await sync(scratch.url, [widenV2, widenLine]));
      } finally {
        await scratch.drop();
      }
    });

    it('finds every field type exactly as it declared it: a second sync changes nothing', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        const first = await sync(scratch.url, [widenV2, everyType]);
        assert.deepEqual(first.createdTables, ['t_widen', 't_every_type']);
        assertNothingChanged(await sync(scratch.url, [widenV2, everyType]));
      } finally {
        await scratch.drop();
      }
    });

    it('runs a before-sync rename before the sync would add the new column, and an after-sync backfill after it', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        await sync(scratch.url, [renameV1]);
        await withDb(scratch.url, (db) => db.insertInto('t_rename').values([{ title: 'alpha' }, { title: 'beta' }]).execute());

        const report = await sync(scratch.url, [renameV2], renameMigrations);
        assert.deepEqual(report.appliedMigrations, ['0001-rename-title', '0002-fill-length']);
        assert.deepEqual(report.addedColumns, ['t_rename.name_length']);
        assert.deepEqual(Object.keys((await liveTypes(scratch.url, 't_rename'))!), ['id', 'name', 'name_length']);
        await withDb(scratch.url, async (db) => {
          assert.deepEqual(await db.selectFrom('t_rename').selectAll().orderBy('id').execute(), [
            { id: 1, name: 'alpha', name_length: 5 },
            { id: 2, name: 'beta', name_length: 4 },
          ]);
        });
        assertNothingChanged(await sync(scratch.url, [renameV2], renameMigrations));
        assert.deepEqual(await recorded(scratch.url), ['0001-rename-title', '0002-fill-length']);
      } finally {
        await scratch.drop();
      }
    });

    it('records before-sync migrations without running them on a database it creates', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        const report = await sync(scratch.url, [renameV2], renameMigrations);
        assert.deepEqual(report.createdTables, ['t_rename']);
        assert.deepEqual(report.skippedMigrations, ['0001-rename-title']);
        assert.deepEqual(report.appliedMigrations, ['0002-fill-length']);
        assert.deepEqual(await recorded(scratch.url), ['0001-rename-title', '0002-fill-length']);
        assertNothingChanged(await sync(scratch.url, [renameV2], renameMigrations));
      } finally {
        await scratch.drop();
      }
    });

    it(engine === 'mysql'
      ? 'a failing migration is not recorded and the next start completes (MariaDB keeps the DDL before it)'
      : 'a failing migration leaves the schema, the rows and the migration records as they were', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        await sync(scratch.url, [atomicV1]);
        await withDb(scratch.url, (db) => db.insertInto('t_atomic').values({ label: 'orig', kind: 'a' }).execute());
        const before = await liveTypes(scratch.url, 't_atomic');
        let ran = 0;
        const ok: Migration = { id: '0001-relabel', phase: 'before-sync', up: async (db) => void (await db.updateTable('t_atomic').set({ label: 'changed' }).execute()) };
        const failing: Migration = { id: '0002-backfill', up: async () => { throw new Error('boom'); } };
        await assert.rejects(sync(scratch.url, [atomicV2, atomicNew], [ok, failing]), /migration 0002-backfill failed: boom/);

        const label = await withDb(scratch.url, async (db) => (await db.selectFrom('t_atomic').select('label').executeTakeFirstOrThrow()).label);
        if (engine === 'mysql') {
          assert.ok((await liveTypes(scratch.url, 't_atomic_new')) !== undefined);
          assert.deepEqual(await recorded(scratch.url), ['0001-relabel']);
          assert.equal(label, 'changed');
        } else {
          assert.deepEqual(await liveTypes(scratch.url, 't_atomic'), before, 'no column added, no type changed');
          assert.equal(await liveTypes(scratch.url, 't_atomic_new'), undefined, 'no table created');
          assert.deepEqual(await recorded(scratch.url), []);
          assert.equal(label, 'orig');
        }

        const fixed: Migration = { id: '0002-backfill', up: async () => void ran++ };
        const report = await sync(scratch.url, [atomicV2, atomicNew], [ok, fixed]);
        assert.deepEqual(report.appliedMigrations, engine === 'mysql' ? ['0002-backfill'] : ['0001-relabel', '0002-backfill']);
        assert.equal(ran, 1);
        assert.deepEqual(await recorded(scratch.url), ['0001-relabel', '0002-backfill']);
        assert.equal(await withDb(scratch.url, async (db) => (await db.selectFrom('t_atomic').select('label').executeTakeFirstOrThrow()).label), 'changed');
        assertNothingChanged(await sync(scratch.url, [atomicV2, atomicNew], [ok, fixed]));
      } finally {
        await scratch.drop();
      }
    });

    it(engine === 'mysql' ? 'a failing DDL statement stops the sync (MariaDB keeps what came before)' : 'a failing DDL statement rolls back the whole sync', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        await sync(scratch.url, [atomicV1]);
        await withDb(scratch.url, (db) => db.insertInto('t_atomic').values([{ label: 'x', kind: 'same' }, { label: 'y', kind: 'same' }]).execute());
        const before = await liveTypes(scratch.url, 't_atomic');
        // The new unique constraint cannot be made: two rows share the value.
        const uniqueKind = defineModel({ ...atomicV2, fields: { ...atomicV2.fields, kind: f.string(5, { unique: true }) } });
        await assert.rejects(sync(scratch.url, [uniqueKind, atomicNew]));
        if (engine === 'mysql') assert.ok('extra' in (await liveTypes(scratch.url, 't_atomic'))!);
        else {
          assert.deepEqual(await liveTypes(scratch.url, 't_atomic'), before);
          assert.equal(await liveTypes(scratch.url, 't_atomic_new'), undefined);
        }
      } finally {
        await scratch.drop();
      }
    });

    it('refuses a narrowing or lossy type change, naming the columns, until a before-sync migration converts them', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        await sync(scratch.url, [narrowV1]);
        await withDb(scratch.url, (db) => db.insertInto('t_narrow').values([{ label: 'a'.repeat(30), amount: 2.75 }, { label: 'short', amount: 1 }]).execute());
        const before = await liveTypes(scratch.url, 't_narrow');
        const rows = [
          { id: 1, label: 'a'.repeat(30), amount: 2.75 },
          { id: 2, label: 'short', amount: 1 },
        ];
        const readRows = () => withDb(scratch.url, (db) => db.selectFrom('t_narrow').selectAll().orderBy('id').execute());

        await assert.rejects(sync(scratch.url, [narrowV2]), (error: unknown) => {
          assert.ok(error instanceof SchemaChangeRefusedError);
          assert.deepEqual(error.columns, ['t_narrow.label', 't_narrow.amount']);
          assert.match(error.message, /t_narrow\.label VARCHAR\(40\) -> VARCHAR\(10\)/);
          return true;
        });
        // Refused before any DDL, on every engine: not even the new column was added.
        assert.deepEqual(await liveTypes(scratch.url, 't_narrow'), before);
        assert.deepEqual(await readRows(), rows);

        const shorten: Migration = {
          id: '0002-shorten',
          phase: 'before-sync',
          converts: ['t_narrow.label', 't_narrow.amount'],
          up: async (db) => void (await sql`UPDATE t_narrow SET label = SUBSTR(label, 1, 10), amount = ROUND(amount)`.execute(db)),
        };
        if (engine !== 'sqlite') {
          // A conversion whose values still do not fit fails instead of truncating them.
          const noop: Migration = { id: '0001-noop', phase: 'before-sync', converts: ['t_narrow.label'], up: async () => {} };
          const lossy = defineModel({ ...narrowV2, fields: { ...narrowV2.fields, amount: f.double() } });
          await assert.rejects(sync(scratch.url, [lossy], [noop]));
          assert.deepEqual(await readRows(), rows);
          assert.deepEqual(await recorded(scratch.url), engine === 'mysql' ? ['0001-noop'] : []);
          // MariaDB/MySQL too: conversions come before any other DDL, so nothing else was done.
          assert.deepEqual(await liveTypes(scratch.url, 't_narrow'), before);
          // A double whose fractions were not taken care of is not rounded into an integer either.
          const keepsFractions: Migration = { id: '0001-zz-keeps-fractions', phase: 'before-sync', converts: ['t_narrow.amount'], up: async () => {} };
          const onlyAmount = defineModel({ ...narrowV2, fields: { ...narrowV2.fields, label: narrowV1.fields.label! } });
          await assert.rejects(sync(scratch.url, [onlyAmount], [keepsFractions]), SchemaChangeRefusedError);
          assert.deepEqual(await readRows(), rows);
        }

        const report = await sync(scratch.url, [narrowV2], [shorten]);
        assert.deepEqual(report.appliedMigrations, ['0002-shorten']);
        assert.deepEqual(report.alteredColumns, ['t_narrow.label', 't_narrow.amount']);
        assert.deepEqual(await readRows(), [
          { id: 1, label: 'a'.repeat(10), amount: 3, added: null },
          { id: 2, label: 'short', amount: 1, added: null },
        ]);
        if (engine !== 'sqlite') {
          await assert.rejects(withDb(scratch.url, (db) => db.insertInto('t_narrow').values({ label: 'b'.repeat(11) }).execute()));
        }
        assertNothingChanged(await sync(scratch.url, [narrowV2], [shorten]));
      } finally {
        await scratch.drop();
      }
    });

    it('two processes upgrading at once: one does the work, the other finds nothing to do', async () => {
      const scratch = await scratchDatabase(engine);
      try {
        await sync(scratch.url, [renameV1, widenV1]);
        await withDb(scratch.url, async (db) => {
          await db.insertInto('t_rename').values({ title: 'alpha' }).execute();
          await db.insertInto('t_widen').values({ label: 'w' }).execute();
        });
        const ran: string[] = [];
        const migrations: Migration[] = renameMigrations.map((migration) => ({
          ...migration,
          up: async (db, eng) => {
            ran.push(migration.id);
            // Slow enough that the second start surely arrives while the first holds the lock.
            await new Promise((resolve) => setTimeout(resolve, 50));
            await migration.up(db, eng);
          },
        }));
        const [a, b] = await Promise.all([
          sync(scratch.url, [renameV2, widenV2, widenLine], migrations),
          sync(scratch.url, [renameV2, widenV2, widenLine], migrations),
        ]);
        const [worker, idle] = a.createdTables.length ? [a, b] : [b, a];
        assert.deepEqual(worker.createdTables, ['t_widen_line']);
        assert.deepEqual(worker.appliedMigrations, ['0001-rename-title', '0002-fill-length']);
        assert.equal(worker.alteredColumns!.length, 4);
        assertNothingChanged(idle);
        assert.deepEqual(ran, ['0001-rename-title', '0002-fill-length']);
        await withDb(scratch.url, async (db) => {
          assert.deepEqual(await db.selectFrom('t_rename').selectAll().execute(), [{ id: 1, name: 'alpha', name_length: 5 }]);
        });
      } finally {
        await scratch.drop();
      }
    });

    it('refuses a migration list it cannot run safely', async () => {
      const scratch = await scratchDatabase(engine);
      const up = async () => {};
      try {
        await assert.rejects(sync(scratch.url, [renameV1], [{ id: '0001-a', up }, { id: '0001-a', up }]), /used twice/);
        await assert.rejects(sync(scratch.url, [renameV1], [{ id: 'seed:x', up }]), /seed:/);
        await assert.rejects(sync(scratch.url, [renameV1], [{ id: '0001-a', converts: ['t_rename.title'], up }]), /before-sync/);
      } finally {
        await scratch.drop();
      }
    });
  });
}
