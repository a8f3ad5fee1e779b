import { sql } from 'kysely';
import type { Model } from '../models/define-model.ts';
import type { ModelRegistry } from '../models/registry.ts';
import { now } from '../models/fields.ts';
import type { Database, DbExecutor, Engine } from './database.ts';
import { columnSql, quoteIdent } from './column-sql.ts';

/**
 * A versioned migration for what the registry cannot derive (renames, data backfills). Each runs
 * once, in id order, after the tables have been brought in line with the registry, and is
 * recorded in `schema_migrations`.
 */
export interface Migration {
  id: string;
  up(db: DbExecutor, engine: Engine): Promise<void>;
}

export interface SyncReport {
  createdTables: string[];
  addedColumns: string[];
  /** SQLite tables rebuilt because their declared foreign keys changed. */
  rebuiltTables: string[];
  appliedMigrations: string[];
}

const MIGRATIONS_TABLE = 'schema_migrations';

async function existingColumns(db: DbExecutor, engine: Engine): Promise<Map<string, Set<string>>> {
  const query =
    engine === 'sqlite'
      ? sql<{ t: string; c: string }>`SELECT m.name AS t, p.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`
      : engine === 'postgres'
        ? sql<{ t: string; c: string }>`SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()`
        : sql<{ t: string; c: string }>`SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = DATABASE()`;
  const { rows } = await query.execute(db);
  const tables = new Map<string, Set<string>>();
  for (const row of rows) {
    const table = String(row.t);
    if (!tables.has(table)) tables.set(table, new Set());
    tables.get(table)!.add(String(row.c));
  }
  return tables;
}

async function existingConstraints(db: DbExecutor, engine: Engine): Promise<Set<string>> {
  const query =
    engine === 'sqlite'
      ? sql<{ n: string }>`SELECT name AS n FROM sqlite_master WHERE type = 'index'`
      : engine === 'postgres'
        ? sql<{ n: string }>`SELECT indexname AS n FROM pg_indexes WHERE schemaname = current_schema()
            UNION SELECT conname AS n FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace WHERE s.nspname = current_schema()`
        : sql<{ n: string }>`SELECT index_name AS n FROM information_schema.statistics WHERE table_schema = DATABASE()
            UNION SELECT constraint_name AS n FROM information_schema.table_constraints WHERE table_schema = DATABASE()`;
  const { rows } = await query.execute(db);
  return new Set(rows.map((row) => String(row.n)));
}

function constraintName(prefix: string, table: string, columns: string[]): string {
  const name = `${prefix}_${table}_${columns.join('_')}`;
  // PostgreSQL and MySQL cut identifiers at 63/64 characters; keep names unique and short.
  if (name.length <= 60) return name;
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 50)}_${hash.toString(36)}`;
}

/** Unique constraints and indexes a model's table should have, with their names. */
function tableIndexes(model: Model): Array<{ name: string; columns: string[]; unique: boolean }> {
  const uniques = [
    ...Object.entries(model.fields).filter(([, field]) => field.unique).map(([name]) => [name]),
    ...(model.unique ?? []),
  ];
  const plain = [
    ...(model.indexes ?? []),
    // Foreign key columns are indexed: RESTRICT/CASCADE checks and joins look them up.
    ...Object.entries(model.fields).filter(([, field]) => field.references && !field.primary).map(([name]) => [name]),
  ];
  return [
    ...uniques.map((columns) => ({ name: constraintName('uq', model.table, columns), columns, unique: true })),
    ...plain.map((columns) => ({ name: constraintName('ix', model.table, columns), columns, unique: false })),
  ];
}

function foreignKeySql(engine: Engine, model: Model, column: string): string {
  const q = (name: string) => quoteIdent(engine, name);
  const ref = model.fields[column]!.references!;
  return `CONSTRAINT ${q(constraintName('fk', model.table, [column]))} FOREIGN KEY (${q(column)}) ` +
    `REFERENCES ${q(ref.table)} (${q(ref.field)}) ON DELETE ${ref.onDelete} ON UPDATE CASCADE`;
}

/**
 * CREATE TABLE for a model. On MySQL/MariaDB every ALTER rebuilds the table, so a new table gets
 * its indexes and foreign keys inline (the sync session runs with FOREIGN_KEY_CHECKS=0, so the
 * order of creation does not matter); elsewhere they are added by the sync's later steps.
 */
function createTableSql(engine: Engine, model: Model): string {
  const q = (name: string) => quoteIdent(engine, name);
  const parts = Object.entries(model.fields).map(([name, field]) => columnSql(engine, name, field));
  if (engine === 'mysql') {
    for (const index of tableIndexes(model)) parts.push(`${index.unique ? 'UNIQUE KEY' : 'KEY'} ${q(index.name)} (${index.columns.map(q).join(', ')})`);
    for (const [name, field] of Object.entries(model.fields)) if (field.references) parts.push(foreignKeySql(engine, model, name));
  }
  const suffix = engine === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
  return `CREATE TABLE ${q(model.table)} (${parts.join(', ')})${suffix}`;
}

async function withSchemaLock<T>(database: Database, fn: (db: DbExecutor) => Promise<T>): Promise<T> {
  const { engine, kysely } = database;
  return kysely.connection().execute(async (db) => {
    if (engine === 'postgres') await sql`SELECT pg_advisory_lock(727310)`.execute(db);
    else if (engine === 'mysql') {
      await sql`SELECT GET_LOCK('invoicing_schema', 120)`.execute(db);
      await sql`SET FOREIGN_KEY_CHECKS = 0`.execute(db);
    } else {
      // Foreign keys off while tables may be rebuilt (SQLite's documented procedure); checked before commit.
      await sql`PRAGMA foreign_keys = OFF`.execute(db);
      await sql`BEGIN IMMEDIATE`.execute(db);
    }
    try {
      const result = await fn(db);
      if (engine === 'sqlite') {
        const { rows } = await sql`PRAGMA foreign_key_check`.execute(db);
        if (rows.length) throw new Error(`schema upgrade would break ${rows.length} foreign key reference(s): ${JSON.stringify(rows.slice(0, 3))}`);
        await sql`COMMIT`.execute(db);
      }
      return result;
    } catch (error) {
      if (engine === 'sqlite') await sql`ROLLBACK`.execute(db);
      throw error;
    } finally {
      if (engine === 'postgres') await sql`SELECT pg_advisory_unlock(727310)`.execute(db);
      else if (engine === 'mysql') {
        await sql`SET FOREIGN_KEY_CHECKS = 1`.execute(db);
        await sql`SELECT RELEASE_LOCK('invoicing_schema')`.execute(db);
      } else await sql`PRAGMA foreign_keys = ON`.execute(db);
    }
  });
}

/** Declared foreign keys of a model as comparable strings. */
function declaredForeignKeys(model: Model): Set<string> {
  const keys = new Set<string>();
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.references) keys.add(`${name}>${field.references.table}.${field.references.field}:${field.references.onDelete}`);
  }
  return keys;
}

/**
 * SQLite cannot add or change a foreign key on an existing table: when the declared keys differ
 * from the table's, the table is rebuilt (create new, copy rows, drop, rename) inside the sync's
 * transaction, with foreign keys off and checked before commit.
 */
async function rebuildSqliteTableIfKeysChanged(db: DbExecutor, model: Model, present: Set<string>): Promise<boolean> {
  const { rows } = await sql<{ table: string; from: string; to: string; on_delete: string }>`
    SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(${model.table})`.execute(db);
  const actual = new Set(rows.map((r) => `${r.from}>${r.table}.${r.to}:${r.on_delete.toUpperCase()}`));
  const declared = declaredForeignKeys(model);
  if (actual.size === declared.size && [...declared].every((key) => actual.has(key))) return false;
  const temp = `${model.table}__rebuild`;
  const q = (name: string) => quoteIdent('sqlite', name);
  const shared = model.fieldNames.filter((name) => present.has(name)).map(q).join(', ');
  await sql.raw(`DROP TABLE IF EXISTS ${q(temp)}`).execute(db);
  await sql.raw(createTableSql('sqlite', { ...model, table: temp })).execute(db);
  await sql.raw(`INSERT INTO ${q(temp)} (${shared}) SELECT ${shared} FROM ${q(model.table)}`).execute(db);
  await sql.raw(`DROP TABLE ${q(model.table)}`).execute(db);
  await sql.raw(`ALTER TABLE ${q(temp)} RENAME TO ${q(model.table)}`).execute(db);
  return true;
}

/**
 * Brings the database in line with the registry, then runs pending versioned migrations.
 * Additive and idempotent: missing tables, columns, unique constraints, indexes and foreign keys
 * are created; nothing is dropped, so rows survive an upgrade. Serialised across instances by an
 * engine lock (advisory lock, GET_LOCK, or SQLite's write lock).
 */
export async function syncSchema(database: Database, registry: ModelRegistry, migrations: Migration[] = []): Promise<SyncReport> {
  const { engine } = database;
  const q = (name: string) => quoteIdent(engine, name);
  return withSchemaLock(database, async (db) => {
    const report: SyncReport = { createdTables: [], addedColumns: [], rebuiltTables: [], appliedMigrations: [] };
    const columns = await existingColumns(db, engine);
    const run = (text: string) => sql.raw(text).execute(db);

    if (!columns.has(MIGRATIONS_TABLE)) {
      await run(`CREATE TABLE ${q(MIGRATIONS_TABLE)} (${q('id')} VARCHAR(100) NOT NULL PRIMARY KEY, ${q('applied_at')} VARCHAR(19) NOT NULL)`);
    }
    const foreignKeys: Array<[Model, string]> = [];
    for (const model of registry.models) {
      const present = columns.get(model.table);
      if (!present) {
        await run(createTableSql(engine, model));
        report.createdTables.push(model.table);
        for (const [name, field] of Object.entries(model.fields)) if (field.references) foreignKeys.push([model, name]);
        continue;
      }
      for (const [name, field] of Object.entries(model.fields)) {
        if (present.has(name)) continue;
        await run(`ALTER TABLE ${q(model.table)} ADD COLUMN ${columnSql(engine, name, field, true)}`);
        report.addedColumns.push(`${model.table}.${name}`);
        present.add(name);
      }
      if (engine === 'sqlite') {
        if (await rebuildSqliteTableIfKeysChanged(db, model, present)) report.rebuiltTables.push(model.table);
      } else {
        for (const [name, field] of Object.entries(model.fields)) if (field.references) foreignKeys.push([model, name]);
      }
    }

    // Keys added to tables that already hold rows must check those rows.
    if (engine === 'mysql') await run('SET FOREIGN_KEY_CHECKS = 1');
    const constraints = await existingConstraints(db, engine);
    for (const model of registry.models) {
      for (const index of tableIndexes(model)) {
        if (constraints.has(index.name)) continue;
        await run(`CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q(index.name)} ON ${q(model.table)} (${index.columns.map(q).join(', ')})`);
      }
    }
    // SQLite declares foreign keys inline; the other engines get the missing ones once every table exists.
    if (engine !== 'sqlite') {
      for (const [model, column] of foreignKeys) {
        if (constraints.has(constraintName('fk', model.table, [column]))) continue;
        await run(`ALTER TABLE ${q(model.table)} ADD ${foreignKeySql(engine, model, column)}`);
      }
    }

    const applied = new Set(
      (await db.selectFrom(MIGRATIONS_TABLE).select('id').execute()).map((row) => String(row.id)),
    );
    for (const migration of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (applied.has(migration.id)) continue;
      await migration.up(db, engine);
      await db.insertInto(MIGRATIONS_TABLE).values({ id: migration.id, applied_at: now() }).execute();
      report.appliedMigrations.push(migration.id);
    }
    return report;
  });
}
