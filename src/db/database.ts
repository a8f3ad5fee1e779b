import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql, MysqlDialect, PostgresDialect, type CompiledQuery, type Dialect } from 'kysely';
import { QueuedSqliteDialect } from './sqlite-queued-dialect.ts';
import type pgLibrary from 'pg';
import type mysqlLibrary from 'mysql2';
import { lazyLibrary } from '../lazy-library.ts';

// Only the engine in use is loaded.
const pg = lazyLibrary<typeof pgLibrary>('pg');
const mysql = lazyLibrary<typeof mysqlLibrary>('mysql2');
import { parseDatabaseUrl, redactUrl } from '../config.ts';
import { cachedStatements } from './sqlite-statement-cache.ts';
import { guardedDialect, guardedRead, type StatementCounter } from './guarded-dialect.ts';
import { dialectFor, type SqlDialect } from './dialect.ts';
import { WriteTracker } from './write-tracker.ts';
import { NamedStatements } from './pg-named-statements.ts';
import { coalesceWrites } from './pg-coalesced-writes.ts';
import { ReplicaSet, routingDialect } from './read-replicas.ts';
import type { DbExecutor, Engine } from './engine.ts';

// The engine's names live apart (engine.ts), so that the modules this one composes need not import it.
export type { DbExecutor, Engine } from './engine.ts';

export interface Database {
  engine: Engine;
  /** The engine's spelling of locks, insert-or-ignore, casts ... (see dialect.ts). */
  dialect: SqlDialect;
  kysely: DbExecutor;
  close(): Promise<void>;
  /**
   * Keeps the planner's statistics fresh as tables grow: SQLite's `PRAGMA optimize` (re-analyzes the
   * tables this connection used whose size changed enough), as its documentation recommends for a
   * long-lived connection, run hourly by a job and at close. PostgreSQL's autovacuum and InnoDB's
   * persistent statistics do this on their own: nothing to do there.
   */
  maintain(): Promise<void>;
  /** Where failures nobody awaits go (a dropped idle connection, an after-commit callback); the core sets the app's logger. */
  reportError: (error: unknown, what: string) => void;
  /**
   * Whether concurrent creations share a transaction and its commit (group-commit.ts, decision
   * 0013): by default on SQLite only, where one connection runs everything one after another
   * anyway; on PostgreSQL and MariaDB separate transactions overlap one's work with another's
   * round trips, which measured faster there unless a commit is slow (`GROUP_COMMIT=on`).
   */
  readonly groupCommit: boolean;
  /**
   * SQLite: where a commit group's savepoints journal the pages their members change (group-commit.ts).
   * `memory()` at the start of the group's transaction, before its first write, keeps that
   * sub-journal in memory (`PRAGMA temp_store`, read when the write transaction begins) instead of
   * a temporary file written a page at a time once it passes 64 KiB, as it did for every group;
   * `files()` before the commit sets the default back, so that sorts and temporary tables outside
   * groups still spill to files. Bounded by the pages a group of documents changes.
   */
  readonly groupJournal?: { memory(): void; files(): void };
  /** Statements run so far (all connections). */
  readonly counter: StatementCounter;
  /** The generation of each table this instance writes (derived caches check it). */
  readonly writes: WriteTracker;
  /** The read replicas, when configured (read-replicas.ts). */
  readonly replicas?: ReplicaSet;
  /**
   * One read outside any transaction, straight to the connection where the engine allows it
   * (SQLite: sqlite-queued-dialect.ts); undefined elsewhere, where reads go through `kysely`.
   */
  readonly read?: (query: CompiledQuery) => Promise<Record<string, unknown>[]>;
}

// pg returns DATE/TIME/TIMESTAMP as JS Dates (in the process time zone) and BIGINT/NUMERIC as
// strings; we keep dates as the strings the database holds and counts as numbers, so that records
// read the same on every engine.
const PG_PARSERS: Record<number, (value: string) => unknown> = {
  1082: (v) => v, // date
  1083: (v) => v, // time
  1114: (v) => v, // timestamp
  1184: (v) => v, // timestamptz
  20: (v) => Number(v), // int8 (count(*))
  1700: (v) => Number(v), // numeric
};

const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return PG_PARSERS[oid] ?? pg().types.getTypeParser(oid, format as 'text');
  },
};

export interface DatabaseOptions {
  poolSize?: number;
  /** Read replicas of the primary (read-replicas.ts); PostgreSQL and MariaDB/MySQL only. */
  readUrls?: string[];
  replicaMaxLagMs?: number;
  replicaCheckMs?: number;
  /** Group commit (see `Database.groupCommit`); unset: on for SQLite only. */
  groupCommit?: boolean;
  /** PostgreSQL: frequent statements run as named (prepared) ones (pg-named-statements.ts); default on. */
  namedStatements?: boolean;
}

const consoleReport = (error: unknown, what: string) => console.error(what, error);

function open(engine: Engine, dialect: Dialect, groupCommit: boolean | undefined, replicas?: ReplicaSet, groupJournal?: Database['groupJournal']): Database {
  const counter: StatementCounter = { statements: 0, roundTrips: 0, retries: 0 };
  const read = dialect instanceof QueuedSqliteDialect ? guardedRead((query) => dialect.read(query), counter) : undefined;
  const writes = new WriteTracker();
  const kysely = new Kysely({ dialect: guardedDialect(replicas ? routingDialect(dialect, replicas) : dialect, counter, writes, engine) });
  const maintain = async () => {
    if (engine === 'sqlite') await sql`PRAGMA optimize`.execute(kysely);
  };
  return {
    engine, dialect: dialectFor(engine), kysely, counter, writes, replicas, read, reportError: consoleReport, maintain,
    groupCommit: groupCommit ?? engine === 'sqlite',
    ...(groupJournal ? { groupJournal } : {}),
    async close() {
      // SQLite: the statistics of what this process used go with it (a failure here loses nothing).
      await maintain().catch(() => {});
      await kysely.destroy();
    },
  };
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  const { engine } = parseDatabaseUrl(url);
  const poolSize = options.poolSize ?? 10;
  if (engine === 'sqlite') {
    const file = url.slice('sqlite:'.length) || ':memory:';
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const raw = new SqliteDatabase(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('busy_timeout = 5000');
    // Statistics for every table that needs them, bounded (SQLite's advice for a connection that lives long).
    raw.pragma('optimize = 0x10002');
    const [memory, files] = [raw.prepare('PRAGMA temp_store = MEMORY'), raw.prepare('PRAGMA temp_store = DEFAULT')];
    const groupJournal = { memory: () => void memory.run(), files: () => void files.run() };
    return open(engine, new QueuedSqliteDialect({ database: cachedStatements(raw) }), options.groupCommit, undefined, groupJournal);
  }
  // Pool events report through the database's reporter, which the core sets after this returns.
  let database: Database | undefined;
  const report = (error: unknown, what: string) => (database?.reportError ?? consoleReport)(error, what);
  const replicas = options.readUrls?.length
    ? new ReplicaSet(
        // A replica that does not answer is given up on sooner than the primary: reads then go to the primary.
        options.readUrls.map((readUrl) => ({ name: redactUrl(readUrl), dialect: serverDialect(engine, readUrl, poolSize, report, 2_000) })),
        { engine, maxLagMs: options.replicaMaxLagMs ?? 2000, checkMs: options.replicaCheckMs ?? 1000, report },
      )
    : undefined;
  database = open(engine, serverDialect(engine, url, poolSize, report, 10_000, options.namedStatements ?? true), options.groupCommit, replicas);
  return database;
}

/** The dialect of a PostgreSQL or MariaDB/MySQL server, with its pool. */
function serverDialect(engine: 'postgres' | 'mysql', url: string, poolSize: number, report: (error: unknown, what: string) => void, connectTimeoutMs: number, namedStatements = false): Dialect {
  if (engine === 'postgres') {
    // A bounded wait for a connection: a database that is down answers 503 instead of holding requests forever.
    const pool = new (pg().Pool)({
      connectionString: url,
      max: poolSize,
      types: pgTypes,
      connectionTimeoutMillis: connectTimeoutMs,
      // Statements a client is given together are written before the first answer is read: a
      // document's batches (statement-batch.ts) take one round trip. Sequential use is unchanged.
      pipeline: true,
      // The server's default, stated in the startup message (no statement that could fail on a new
      // connection): numbering and code counters rely on it (see MariaDB below).
      options: '-c default_transaction_isolation=read\\ committed',
    });
    // An idle client whose backend went away (restart, pg_terminate_backend, network) is dropped by
    // the pool after this event; without a listener Node would end the process on it.
    pool.on('error', (error) => report(error, 'idle PostgreSQL connection lost'));
    // A client in use between two statements (inside a transaction) gets the same event: it would
    // also end the process. Its next statement fails instead, and the pool drops it on release.
    pool.on('connect', (client) => client.on('error', (error) => report(error, 'PostgreSQL connection lost while in use')));
    pool.on('connect', (client) => coalesceWrites(client as never));
    if (namedStatements) {
      const names = new NamedStatements();
      pool.on('connect', (client) => names.adopt(client as never));
    }
    return new PostgresDialect({ pool });
  }
  const pool = mysql().createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: poolSize,
    connectTimeout: connectTimeoutMs,
    dateStrings: true,
    decimalNumbers: true,
    supportBigNumbers: true,
    timezone: 'Z',
    charset: 'utf8mb4',
    // A document's batches (statement-batch.ts) travel as one multi-statement query. Parameters
    // are still bound by the driver, never spliced into the SQL by our code.
    multipleStatements: true,
  });
  // READ COMMITTED as on PostgreSQL: a transaction that waited for a row lock then sees what the
  // holder committed (numbering, code counters), and InnoDB takes no gap locks, which were the
  // source of deadlocks between concurrent document creations. Queued on each new connection ahead
  // of any other statement; a failure is reported, never a connection left checked out.
  pool.on('connection', (connection) => {
    connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', (error) => {
      if (error) report(error, 'could not set READ COMMITTED on a new MariaDB connection');
    });
  });
  return new MysqlDialect({ pool });
}
