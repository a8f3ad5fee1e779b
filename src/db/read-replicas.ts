import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import type { Engine } from './engine.ts';
import { isRetryable, isUnavailable } from './translate-error.ts';

/**
 * Read replicas (docs/deploy.md, "Read replicas"): statements that only read, run outside a
 * transaction by code that `fromReplicas` marked (the reads of a GET request), go to a healthy
 * replica whose lag is within bound; everything else goes to the primary:
 * - writes, whatever the caller, and reads that lock (`FOR UPDATE`/`FOR SHARE`) or call functions
 *   with effects (sequences, locks);
 * - every statement of a transaction, reads included (a transaction is bound to the primary when it begins);
 * - reads outside `fromReplicas` (startup, jobs, the CLI, the requests that write).
 * The choice is made per statement, when it first runs on a connection Kysely asked for: a
 * connection is only bound to a server once its first statement says what it is.
 *
 * All the reads of one `fromReplicas` scope (a request) go to the same replica, so that they see
 * one state that only moves forward (a document's header and lines, the event feed's hole and
 * page); if that replica stops being usable, the rest go to the primary, which is ahead of it.
 *
 * A replica is used only after a check found it up, streaming from the primary and within
 * `maxLagMs` of it; checks run every `checkMs`. A replica that refuses a connection, or whose
 * connection breaks during a statement, is marked down at once and the statement runs again on
 * the primary (it only read); a statement the replica cancels (a conflict with recovery) also
 * runs again on the primary. A stream that breaks half-way fails its request: its first rows
 * have been sent.
 */
interface ReadScope {
  /** The replica this scope's reads went to first: later reads go to it too, so they never go back in time. */
  replica?: Replica;
  /** A statement of this scope ran on the primary: the rest do too (a replica may be behind what it saw). */
  primary?: boolean;
}

const readScope = new AsyncLocalStorage<ReadScope | undefined>();

/** Runs `fn` where statements that only read may go to a replica (one replica for all of them). */
export function fromReplicas<T>(fn: () => T): T {
  return readScope.run({}, fn);
}

/** Runs `fn` with every statement on the primary (transactions, caches shared with writers). */
export function onPrimary<T>(fn: () => T): T {
  return readScope.run(undefined, fn);
}

/** Whether reads here may go to a replica (caches keep such reads apart from the primary's). */
export function readingFromReplicas(): boolean {
  return readScope.getStore() !== undefined;
}

const LOCKING = /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\block\s+in\s+share\s+mode\b/i;
const EFFECTFUL = /\b(nextval|setval|pg_advisory\w*|get_lock|release_lock|pg_notify|last_insert_id)\s*\(/i;

/** A statement that reads and changes nothing, so a replica may answer it. */
export function isPlainRead(query: CompiledQuery): boolean {
  const kind = query.query.kind;
  if (kind !== 'SelectQueryNode' && !(kind === 'RawNode' && /^\s*select\b/i.test(query.sql))) return false;
  return !LOCKING.test(query.sql) && !EFFECTFUL.test(query.sql);
}

export interface ReplicaStatus {
  /** The replica's host and database (never its credentials). */
  name: string;
  up: boolean;
  /** Milliseconds behind the primary at the last check (null: unknown). */
  lagMs: number | null;
  /** Used for reads: up and within the lag bound. */
  usable: boolean;
  /** Statements it answered. */
  statements: number;
  error?: string;
}

interface Replica {
  name: string;
  driver: Driver;
  up: boolean;
  /** A failure was reported and no check has found the replica well since. */
  reported: boolean;
  lagMs: number | null;
  statements: number;
  error?: string;
}

export interface ReplicaOptions {
  engine: Engine;
  maxLagMs: number;
  checkMs: number;
  /** Where check failures go (the app's logger). */
  report: (error: unknown, what: string) => void;
}

/** How far behind the primary a server is, in ms: 0 for a server that is not replicating (a primary). */
const LAG_SQL = {
  // NULL (unknown, so not used): not streaming from the primary (the WAL receiver is gone, or the
  // role may not see its status: grant it pg_read_all_stats), or WAL waits with no replayed
  // transaction to date it by.
  postgres: `SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0
    WHEN NOT EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming') THEN NULL
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE EXTRACT(EPOCH FROM (now() - pg_last_xact_replay_timestamp())) * 1000 END AS lag`,
  mysql: 'SHOW REPLICA STATUS',
} as const;

export class ReplicaSet {
  readonly #replicas: Replica[];
  readonly #options: ReplicaOptions;
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;

  constructor(replicas: Array<{ name: string; dialect: Dialect }>, options: ReplicaOptions) {
    this.#replicas = replicas.map(({ name, dialect }) => ({ name, driver: dialect.createDriver(), up: false, reported: false, lagMs: null, statements: 0 }));
    this.#options = options;
  }

  status(): ReplicaStatus[] {
    return this.#replicas.map((replica) => ({
      name: replica.name,
      up: replica.up,
      lagMs: replica.lagMs,
      usable: this.#usable(replica),
      statements: replica.statements,
      ...(replica.error ? { error: replica.error } : {}),
    }));
  }

  #usable(replica: Replica): boolean {
    return replica.up && replica.lagMs !== null && replica.lagMs <= this.#options.maxLagMs;
  }

  /** The next usable replica, round robin; undefined when none is. */
  #pick(): Replica | undefined {
    for (let i = 0; i < this.#replicas.length; i++) {
      const replica = this.#replicas[(this.#next + i) % this.#replicas.length]!;
      if (this.#usable(replica)) {
        this.#next = (this.#next + i + 1) % this.#replicas.length;
        return replica;
      }
    }
    return undefined;
  }

  /** Reported once per failure (at start too: a wrong password or a missing privilege must show). */
  markDown(replica: Replica, error: unknown): void {
    if (!replica.reported) this.#options.report(error, `read replica ${replica.name} is down or refuses the check: reads go to the primary`);
    replica.reported = true;
    replica.up = false;
    replica.error = error instanceof Error ? error.message : String(error);
  }

  /** Checks every replica once (also what the timer runs). */
  async check(): Promise<void> {
    await Promise.all(this.#replicas.map(async (replica) => {
      try {
        const connection = await replica.driver.acquireConnection();
        try {
          const lagMs = await this.#lagOf(connection);
          Object.assign(replica, { up: true, reported: false, lagMs, error: undefined });
        } finally {
          await replica.driver.releaseConnection(connection);
        }
      } catch (error) {
        this.markDown(replica, error);
      }
    }));
  }

  async #lagOf(connection: DatabaseConnection): Promise<number> {
    if (this.#options.engine === 'postgres') {
      const { rows } = await connection.executeQuery<{ lag: unknown }>(CompiledQuery.raw(LAG_SQL.postgres));
      const lag = rows[0]?.lag;
      return lag === null || lag === undefined ? Number.POSITIVE_INFINITY : Math.round(Number(lag));
    }
    let rows: Array<Record<string, unknown>>;
    try {
      rows = (await connection.executeQuery<Record<string, unknown>>(CompiledQuery.raw(LAG_SQL.mysql))).rows;
    } catch {
      // Before MariaDB 10.5.1 / MySQL 8.0.22.
      rows = (await connection.executeQuery<Record<string, unknown>>(CompiledQuery.raw('SHOW SLAVE STATUS'))).rows;
    }
    if (!rows.length) return 0;
    const seconds = rows[0]!.Seconds_Behind_Source ?? rows[0]!.Seconds_Behind_Master;
    // NULL: replication is stopped, so the lag grows without bound.
    if (seconds === null || seconds === undefined) return Number.POSITIVE_INFINITY;
    return Number(seconds) * 1000;
  }

  async init(): Promise<void> {
    await Promise.all(this.#replicas.map((replica) => replica.driver.init()));
    await this.check();
    this.startChecks();
  }

  /**
   * The periodic checks (started by `init`; tests stop them to meet a failure first): the next
   * round is scheduled when one ends, so a replica that hangs does not pile checks up.
   */
  startChecks(): void {
    this.stopChecks();
    this.#stopped = false;
    const round = () => {
      this.#timer = setTimeout(() => {
        void this.check().finally(() => {
          if (!this.#stopped) round();
        });
      }, this.#options.checkMs);
      this.#timer.unref();
    };
    round();
  }

  stopChecks(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async destroy(): Promise<void> {
    this.stopChecks();
    await Promise.all(this.#replicas.map((replica) => replica.driver.destroy().catch(() => {})));
  }

  /** The replica for a read in `scope`: the one its earlier reads used while it stays usable, else a new pick (none once one failed). */
  #replicaFor(scope: ReadScope): Replica | undefined {
    if (scope.primary) return undefined;
    if (scope.replica) return this.#usable(scope.replica) ? scope.replica : undefined;
    return (scope.replica = this.#pick());
  }

  /** Runs `query` on the scope's replica; undefined (run it on the primary) when there is none or it failed to. */
  async tryRead<R>(scope: ReadScope, run: (connection: DatabaseConnection) => Promise<R>): Promise<{ result: R } | undefined> {
    const held = await this.acquireFor(scope);
    if (!held) return undefined;
    const { replica, connection } = held;
    try {
      return { result: await run(connection) };
    } catch (error) {
      if (isUnavailable(error)) this.markDown(replica, error);
      // A hot standby cancels a read that conflicts with the WAL it replays (SQLSTATE 40001).
      else if (!isRetryable(error)) throw error;
      return undefined;
    } finally {
      await replica.driver.releaseConnection(connection);
    }
  }

  /** A connection of the scope's replica (counted as one statement); undefined when there is none or it refuses. */
  async acquireFor(scope: ReadScope): Promise<{ replica: Replica; connection: DatabaseConnection } | undefined> {
    const replica = this.#replicaFor(scope);
    if (!replica) return undefined;
    try {
      const connection = await replica.driver.acquireConnection();
      replica.statements++;
      return { replica, connection };
    } catch (error) {
      this.markDown(replica, error);
      return undefined;
    }
  }
}

/**
 * A connection whose server is chosen by its first statement: a plain read inside `fromReplicas`
 * runs on a replica (one connection per statement, given back at once), anything else binds the
 * connection to one of the primary's for the rest of its life (a transaction, a write).
 */
class RoutingConnection implements DatabaseConnection {
  /** The primary's connection, once a statement bound this one to it (a promise: two statements may race to bind). */
  primary: Promise<DatabaseConnection> | undefined;
  readonly #driver: Driver;
  readonly #replicas: ReplicaSet;

  constructor(driver: Driver, replicas: ReplicaSet) {
    this.#driver = driver;
    this.#replicas = replicas;
  }

  bind(): Promise<DatabaseConnection> {
    return (this.primary ??= this.#driver.acquireConnection());
  }

  /** The read scope when `query` may go to a replica. */
  #replicaScope(query: CompiledQuery): ReadScope | undefined {
    const scope = readScope.getStore();
    return scope && !this.primary && isPlainRead(query) ? scope : undefined;
  }

  /** The primary's connection for a statement; the scope it runs in keeps to the primary from now on. */
  #onPrimary(): Promise<DatabaseConnection> {
    const scope = readScope.getStore();
    if (scope) scope.primary = true;
    return this.bind();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const scope = this.#replicaScope(query);
    if (scope) {
      const read = await this.#replicas.tryRead(scope, (connection) => connection.executeQuery<R>(query));
      if (read) return read.result;
    }
    return (await this.#onPrimary()).executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    // A stream holds its connection while the caller consumes it: on a replica, for the stream's life.
    const scope = this.#replicaScope(query);
    const held = scope && (await this.#replicas.acquireFor(scope));
    if (held) {
      try {
        yield* held.connection.streamQuery<R>(query, chunkSize);
        return;
      } finally {
        await held.replica.driver.releaseConnection(held.connection);
      }
    }
    yield* (await this.#onPrimary()).streamQuery<R>(query, chunkSize);
  }
}

/** The primary's dialect, with the replicas' reads routed as the module comment says. */
export function routingDialect(primary: Dialect, replicas: ReplicaSet): Dialect {
  return {
    createAdapter: () => primary.createAdapter(),
    createQueryCompiler: () => primary.createQueryCompiler(),
    createIntrospector: (db) => primary.createIntrospector(db),
    createDriver: () => routingDriver(primary.createDriver(), replicas),
  };
}

function routingDriver(driver: Driver, replicas: ReplicaSet): Driver {
  const inner = async (connection: DatabaseConnection) => (connection as RoutingConnection).bind();
  return {
    init: async () => {
      await driver.init();
      await replicas.init();
    },
    acquireConnection: async () => new RoutingConnection(driver, replicas),
    beginTransaction: async (connection: DatabaseConnection, settings: TransactionSettings) => driver.beginTransaction(await inner(connection), settings),
    commitTransaction: async (connection) => driver.commitTransaction(await inner(connection)),
    rollbackTransaction: async (connection) => driver.rollbackTransaction(await inner(connection)),
    ...(driver.savepoint ? { savepoint: async (connection, name, compile) => driver.savepoint!(await inner(connection), name, compile) } : {}),
    ...(driver.rollbackToSavepoint ? { rollbackToSavepoint: async (connection, name, compile) => driver.rollbackToSavepoint!(await inner(connection), name, compile) } : {}),
    ...(driver.releaseSavepoint ? { releaseSavepoint: async (connection, name, compile) => driver.releaseSavepoint!(await inner(connection), name, compile) } : {}),
    releaseConnection: async (connection) => {
      const bound = (connection as RoutingConnection).primary;
      if (bound) await driver.releaseConnection(await bound);
    },
    destroy: async () => {
      await replicas.destroy();
      await driver.destroy();
    },
  };
}
