import { sql } from 'kysely';
import type { Database, DbExecutor } from './database.ts';

/** How long a start waits for another process's schema sync before giving up. */
const LOCK_WAIT_SECONDS = 120;
const PG_LOCK_KEY = 727310;

/**
 * Runs `fn` (the schema sync) on one connection, alone among every process sharing the database,
 * and as one transaction where the engine can roll DDL back:
 * - PostgreSQL: one transaction holding `pg_advisory_xact_lock`. Everything `fn` does (DDL,
 *   migrations, their records) commits together or not at all; the lock ends with the transaction.
 * - SQLite: one `BEGIN IMMEDIATE` transaction (the database's write lock), with foreign keys off
 *   while tables may be rebuilt (SQLite's documented procedure) and checked before commit.
 * - MariaDB/MySQL: `GET_LOCK` only. Every DDL statement commits implicitly, so a failure keeps the
 *   statements before it. The session is made strict for the sync, so a type conversion fails
 *   instead of truncating values. `fn` may turn FOREIGN_KEY_CHECKS off; they are back on after.
 * Waits up to LOCK_WAIT_SECONDS for another process's sync, then fails.
 */
export async function withSchemaLock<T>(database: Database, fn: (db: DbExecutor) => Promise<T>): Promise<T> {
  const { engine, kysely } = database;
  return kysely.connection().execute(async (db) => {
    if (engine === 'mysql') return withMysqlLock(db, fn);
    if (engine === 'postgres') {
      await sql`BEGIN`.execute(db);
      try {
        await sql`SET LOCAL lock_timeout = ${sql.lit(`${LOCK_WAIT_SECONDS}s`)}`.execute(db);
        await sql`SELECT pg_advisory_xact_lock(${sql.lit(PG_LOCK_KEY)})`.execute(db);
        await sql`SET LOCAL lock_timeout = DEFAULT`.execute(db);
        const result = await fn(db);
        await sql`COMMIT`.execute(db);
        return result;
      } catch (error) {
        await sql`ROLLBACK`.execute(db).catch(() => {});
        throw error;
      }
    }
    await sql`PRAGMA foreign_keys = OFF`.execute(db);
    try {
      await beginImmediate(db);
      try {
        const result = await fn(db);
        const { rows } = await sql`PRAGMA foreign_key_check`.execute(db);
        if (rows.length) throw new Error(`schema upgrade would break ${rows.length} foreign key reference(s): ${JSON.stringify(rows.slice(0, 3))}`);
        await sql`COMMIT`.execute(db);
        return result;
      } catch (error) {
        await sql`ROLLBACK`.execute(db).catch(() => {});
        throw error;
      }
    } finally {
      await sql`PRAGMA foreign_keys = ON`.execute(db);
    }
  });
}

/**
 * Takes SQLite's write lock without blocking the event loop: better-sqlite3 waits synchronously
 * (busy_timeout), which would also stall a sync of this same process on another connection. So
 * the wait is a loop of non-blocking attempts.
 */
async function beginImmediate(db: DbExecutor): Promise<void> {
  const { rows } = await sql<{ timeout: number }>`PRAGMA busy_timeout`.execute(db);
  const timeout = Number(rows[0]?.timeout ?? 0);
  await sql`PRAGMA busy_timeout = 0`.execute(db);
  try {
    const deadline = Date.now() + LOCK_WAIT_SECONDS * 1000;
    for (;;) {
      try {
        await sql`BEGIN IMMEDIATE`.execute(db);
        return;
      } catch (error) {
        if (!String((error as { code?: string }).code).startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  } finally {
    await sql.raw(`PRAGMA busy_timeout = ${timeout}`).execute(db);
  }
}

/** GET_LOCK names are server-wide: the lock is named after the database, so installations (and test databases) on one server do not wait for each other. */
const MYSQL_LOCK_NAME = sql`CONCAT('invoicing_schema:', MD5(DATABASE()))`;

async function withMysqlLock<T>(db: DbExecutor, fn: (db: DbExecutor) => Promise<T>): Promise<T> {
  const { rows } = await sql<{ got: number | null }>`SELECT GET_LOCK(${MYSQL_LOCK_NAME}, ${sql.lit(LOCK_WAIT_SECONDS)}) AS got`.execute(db);
  if (Number(rows[0]?.got) !== 1) throw new Error(`schema sync: another process held the schema lock for more than ${LOCK_WAIT_SECONDS} s`);
  try {
    await sql`SET @invoicing_sql_mode = @@SESSION.sql_mode`.execute(db);
    await sql`SET SESSION sql_mode = CONCAT_WS(',', NULLIF(@@SESSION.sql_mode, ''), 'STRICT_ALL_TABLES')`.execute(db);
    return await fn(db);
  } finally {
    await sql`SET SESSION sql_mode = @invoicing_sql_mode`.execute(db);
    await sql`SET FOREIGN_KEY_CHECKS = 1`.execute(db);
    await sql`SELECT RELEASE_LOCK(${MYSQL_LOCK_NAME})`.execute(db);
  }
}
