import { sql } from 'kysely';
import type { DbExecutor, Engine } from './database.ts';
import { quoteIdent } from './column-sql.ts';

/**
 * Versioned migrations: the steps the model registry cannot derive (renames, conversions that
 * would otherwise be refused, backfills). The runner's contract, relied on by schema-sync.ts:
 * - each migration runs once per database and is recorded in `schema_migrations` (id, applied_at)
 *   by the same transaction that ran it (on MariaDB/MySQL, see below);
 * - pending migrations of a phase run in id order (plain code-point order: use zero-padded
 *   numbers, `0007-rename-x`); an id already recorded never runs again, whatever its position;
 * - the caller holds the schema lock (schema-lock.ts), so two processes never run one twice;
 * - on PostgreSQL and SQLite they run inside the sync's one transaction: a failure rolls back the
 *   migrations and the sync's DDL alike. MariaDB/MySQL cannot roll DDL back: each migration runs in
 *   its own transaction, which protects its data changes and its record, but any DDL statement
 *   commits what came before it. A migration with DDL must therefore be safe to run again there.
 * `seed:<id>` rows in the same table are data-seeds.ts's markers; migration ids may not use that prefix.
 */

export type MigrationPhase = 'before-sync' | 'after-sync';

export interface Migration {
  id: string;
  /**
   * `before-sync`: runs before the tables are brought in line with the registry, for what the
   * additive sync would otherwise do wrong (rename a column before the sync adds the new name;
   * make values fit a narrower type). A database the sync creates from nothing is already in its
   * final shape: there these are recorded without running. `after-sync` (the default): runs once
   * every table, column, index and key exists (backfills); it runs on new databases too.
   */
  phase?: MigrationPhase;
  /**
   * Columns (`table.column`) whose type change the sync would refuse as unsafe (a shorter varchar,
   * text to varchar, double to integer ...) and whose values this before-sync migration makes fit.
   * The sync then applies the registry's type to them in the same run; a value that still does not
   * fit fails the sync (PostgreSQL and MariaDB/MySQL refuse to truncate; SQLite keeps it as is).
   */
  converts?: string[];
  /** Runs the step on the sync's connection (inside its transaction where there is one): do not open a transaction. */
  up(db: DbExecutor, engine: Engine): Promise<void>;
}

export const MIGRATIONS_TABLE = 'schema_migrations';

/** Fails fast on a list that cannot be run safely (duplicate ids, reserved ids, misplaced `converts`). */
export function checkMigrations(migrations: Migration[]): void {
  const seen = new Set<string>();
  for (const migration of migrations) {
    const { id } = migration;
    if (!id || id.length > 100 || id.startsWith('seed:')) throw new Error(`migration id "${id}" must be 1-100 characters and not start with "seed:"`);
    if (seen.has(id)) throw new Error(`migration id "${id}" is used twice`);
    seen.add(id);
    if (migration.converts?.length && migration.phase !== 'before-sync') throw new Error(`migration ${id}: \`converts\` needs phase 'before-sync'`);
    for (const column of migration.converts ?? []) {
      if (!/^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/i.test(column)) throw new Error(`migration ${id}: converts "${column}" is not table.column`);
    }
  }
}

/** Creates `schema_migrations` when the database has none (same shape as every earlier version). */
export async function ensureMigrationsTable(db: DbExecutor, engine: Engine, exists: boolean): Promise<void> {
  if (exists) return;
  const q = (name: string) => quoteIdent(engine, name);
  await sql.raw(`CREATE TABLE ${q(MIGRATIONS_TABLE)} (${q('id')} VARCHAR(100) NOT NULL PRIMARY KEY, ${q('applied_at')} VARCHAR(19) NOT NULL)`).execute(db);
}

export async function appliedMigrationIds(db: DbExecutor): Promise<Set<string>> {
  const rows = await db.selectFrom(MIGRATIONS_TABLE).select('id').execute();
  return new Set(rows.map((row) => String(row.id)));
}

/** The migrations of a phase not yet recorded, in the order they run. */
export function pendingMigrations(migrations: Migration[], phase: MigrationPhase, applied: Set<string>): Migration[] {
  return migrations
    .filter((migration) => (migration.phase ?? 'after-sync') === phase && !applied.has(migration.id))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Records a migration as applied, stamped `YYYY-MM-DD HH:MM:SS` in UTC (bookkeeping, not business time). */
export async function recordMigration(db: DbExecutor, id: string): Promise<void> {
  const appliedAt = new Date().toISOString().slice(0, 19).replace('T', ' ');
  await db.insertInto(MIGRATIONS_TABLE).values({ id, applied_at: appliedAt }).execute();
}

/** Runs one migration and records it (see the contract above); its error names the migration. */
export async function runMigration(db: DbExecutor, engine: Engine, migration: Migration): Promise<void> {
  const ownTransaction = engine === 'mysql';
  try {
    if (ownTransaction) await sql`START TRANSACTION`.execute(db);
    await migration.up(db, engine);
    await recordMigration(db, migration.id);
    if (ownTransaction) await sql`COMMIT`.execute(db);
  } catch (error) {
    if (ownTransaction) await sql`ROLLBACK`.execute(db).catch(() => {});
    throw new Error(`migration ${migration.id} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
