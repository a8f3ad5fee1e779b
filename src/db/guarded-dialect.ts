import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult } from 'kysely';

type Options = Parameters<DatabaseConnection['executeQuery']>[1];
import { currentGate } from './commit-gate.ts';
import { batchParts, commitFollowsTail, commitTails, commitWithTail, committedByBatch, pipelinedFollowers } from './statement-batch.ts';
import type { Engine } from './engine.ts';
import { activePin, beginSavepoint, endSavepoint, pinOfConnection, type Pin } from './pinned-transaction.ts';
import { assertNoTransaction } from './transaction.ts';
import type { WriteTracker } from './write-tracker.ts';

/** How many statements the database has run: cheap enough to keep on, read by tests and benches. */
export interface StatementCounter {
  statements: number;
  /** Round trips to the database: the statements of a batch (statement-batch.ts) travel in one. */
  roundTrips: number;
  /** Transactions run again after a deadlock or a serialisation failure (transaction.ts, group-commit.ts). */
  retries: number;
  /** Sees every statement before it runs, with the number of the round trip it travels in, when set (tests that check what a use case runs). */
  observer?: (query: CompiledQuery, roundTrip: number) => void;
}

/**
 * Wraps a dialect so that its driver refuses to hand out a connection to code running inside a
 * transaction (see transaction.ts): on SQLite such a request would wait for the transaction that
 * is waiting for it, and on a pool it takes a second connection per transaction until the pool
 * is exhausted. Failing fast turns a permanent hang into an error with a stack. Every statement
 * run on a connection it hands out is counted in `counter`, and its writes told to `writes`.
 */
export function guardedDialect(dialect: Dialect, counter: StatementCounter, writes: WriteTracker, engine: Engine): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => guardedDriver(dialect.createDriver(), counter, writes, engine),
  };
}

const TRANSACTION_ENDS = new Set<PropertyKey>(['commitTransaction', 'rollbackTransaction']);

/**
 * What every use of the connection passes first: refused to code running inside a transaction, and
 * a request whose transaction is held for its answer (commit-gate.ts) commits it first.
 */
async function admitConnectionUse(): Promise<void> {
  assertNoTransaction('a database connection');
  await currentGate()?.release();
}

/** Counts a query sent to the database: one round trip (unless it follows another in a pipeline), and each statement it holds. */
function countStatement(counter: StatementCounter, query: CompiledQuery, follower = pipelinedFollowers.has(query)): void {
  if (!follower) counter.roundTrips++;
  for (const part of batchParts.get(query) ?? [query]) {
    counter.statements++;
    counter.observer?.(part, counter.roundTrips);
  }
}

/**
 * Connections whose transaction began in the driver's eyes but not yet on the server: its BEGIN
 * goes with the transaction's first statement, in that statement's round trip (a transaction's
 * snapshot and locks are taken by its statements, not by BEGIN, on both server engines). A
 * transaction that ends before any statement sends nothing. SQLite, and a transaction with an
 * isolation level or access mode, begin at once.
 */
const pendingBegins = new WeakSet<DatabaseConnection>();

/** The statement's own result from the answers that followed its BEGIN in one MariaDB query (as Kysely's MySQL driver makes it). */
function answerAfterBegin<R>(answers: unknown[], batch: boolean): QueryResult<R> {
  if (batch) return { rows: answers as R[] };
  const answer = answers[0];
  if (Array.isArray(answer)) return { rows: answer as R[] };
  const { insertId, affectedRows, changedRows } = (answer ?? {}) as { insertId?: number | bigint; affectedRows?: number; changedRows?: number };
  return {
    rows: [],
    insertId: insertId != null && insertId.toString() !== '0' ? BigInt(insertId) : undefined,
    numAffectedRows: affectedRows != null ? BigInt(affectedRows) : undefined,
    numChangedRows: changedRows != null ? BigInt(changedRows) : undefined,
  };
}

function guardedDriver(driver: Driver, counter: StatementCounter, writes: WriteTracker, engine: Engine): Driver {
  const counted = new WeakSet<DatabaseConnection>();
  const count = (connection: DatabaseConnection) => {
    if (counted.has(connection)) return connection;
    counted.add(connection);
    const execute = connection.executeQuery.bind(connection);
    const run = <R>(query: CompiledQuery, options?: Options, follower = pipelinedFollowers.has(query) || (commitFollowsTail.has(connection) && /^commit\b/i.test(query.sql))): Promise<QueryResult<R>> => {
      countStatement(counter, query, follower);
      // A multi-statement batch writes what each of its statements writes.
      const done = (batchParts.get(query) ?? [query]).map((part) => writes.statement(connection, part.query)).filter((after) => after !== undefined);
      if (!done.length) return execute<R>(query, options);
      return execute<R>(query, options).finally(() => {
        for (const after of done) after();
      });
    };
    connection.executeQuery = async <R>(query: CompiledQuery, options?: Options): Promise<QueryResult<R>> => {
      // A transaction its batch committed is over: a statement now would run outside it, unseen by its rollback.
      if (committedByBatch.has(connection)) throw new Error(`a statement after its transaction's batch committed: ${query.sql.slice(0, 80)}`);
      if (!pendingBegins.delete(connection)) return run<R>(query, options);
      if (engine === 'postgres') {
        // Pipelined: both are written in this tick (pg-coalesced-writes.ts), the statement counted in the BEGIN's round trip.
        const begun = run(CompiledQuery.raw('begin'));
        const result = run<R>(query, options, true);
        begun.catch(() => {});
        result.catch(() => {});
        await begun;
        return result;
      }
      // MariaDB: one multi-statement query, whose first answer (the BEGIN's) is not the statement's.
      const combined = CompiledQuery.raw(`begin;\n${query.sql}`, [...query.parameters]);
      batchParts.set(combined, [CompiledQuery.raw('begin'), ...(batchParts.get(query) ?? [query])]);
      const answers = (await run(combined, options)).rows as unknown[];
      return answerAfterBegin<R>(answers.slice(1), batchParts.has(query));
    };
    const stream = connection.streamQuery.bind(connection);
    connection.streamQuery = <R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> => {
      if (!pendingBegins.delete(connection)) return stream<R>(query, chunkSize);
      return (async function* () {
        await run(CompiledQuery.raw('begin'));
        yield* stream<R>(query, chunkSize);
      })();
    };
    return connection;
  };
  /** The running pin whose connection `connection` is, if any (pinned-transaction.ts). */
  const pinOf = (connection: DatabaseConnection): Pin | undefined => {
    const pin = pinOfConnection(connection);
    return pin && !pin.ended && !pin.released ? pin : undefined;
  };
  const runOn = (connection: DatabaseConnection) => (text: string) => connection.executeQuery(CompiledQuery.raw(text));
  return new Proxy(driver, {
    get(target, property) {
      if (property === 'acquireConnection') {
        return async (...args: Parameters<Driver['acquireConnection']>) => {
          await admitConnectionUse();
          // A pin whose connection went back already (its end) hands out connections as usual.
          const active = activePin();
          const pin = active && !active.released ? active : undefined;
          if (pin?.connection) return pin.connection;
          const connection = count(await target.acquireConnection(...args));
          // The first connection of a pinned flow is its transaction's (inPinnedTransaction asks first).
          if (pin) pin.connection = connection;
          return connection;
        };
      }
      if (property === 'releaseConnection') {
        return async (connection: DatabaseConnection) => {
          const pin = pinOfConnection(connection);
          if (pin && (pin.depth > 0 || pin.released)) return;
          if (pin) pin.released = true;
          return target.releaseConnection(connection);
        };
      }
      if (property === 'beginTransaction') {
        return async (connection: DatabaseConnection, settings: Parameters<Driver['beginTransaction']>[1]) => {
          const pin = pinOf(connection);
          if (pin && pin.depth > 0) return beginSavepoint(pin, runOn(connection));
          writes.began(connection);
          // Sent with the transaction's first statement, in its round trip (`beginWith`).
          if (engine !== 'sqlite' && !settings.isolationLevel && !settings.accessMode) pendingBegins.add(connection);
          else await target.beginTransaction(connection, settings);
          if (pin) pin.depth = 1;
        };
      }
      if (TRANSACTION_ENDS.has(property)) {
        const end = (Reflect.get(target, property, target) as (connection: DatabaseConnection) => Promise<void>).bind(target);
        return async (connection: DatabaseConnection) => {
          if (pendingBegins.has(connection) && !commitTails.get(connection)?.length) {
            // Nothing ran: there is no transaction on the server to end (a pinned one's connection may go back).
            pendingBegins.delete(connection);
            commitTails.delete(connection);
            const pin = pinOf(connection);
            if (pin) {
              pin.depth = 0;
              pin.savepoints.length = 0;
            }
            writes.ended(connection);
            return;
          }
          if (committedByBatch.delete(connection)) {
            // Its COMMIT went with its last batch (statement-batch.ts): nothing left to end (a rollback
            // asked now follows a failure after that commit, which the failure itself reports).
            commitTails.delete(connection);
            writes.ended(connection);
            return;
          }
          const pin = pinOf(connection);
          if (pin && pin.depth > 1 && !pin.closing) return endSavepoint(pin, property === 'rollbackTransaction', runOn(connection));
          if (pin?.broken !== undefined && property === 'commitTransaction') {
            throw new Error('the pinned transaction lost a savepoint and can only roll back', { cause: pin.broken });
          }
          try {
            // The statements deferred to the commit (statement-batch.ts) go with it, or with the rollback nowhere.
            if (property === 'commitTransaction') return await commitWithTail(connection, engine, () => end(connection));
            commitTails.delete(connection);
            return await end(connection);
          } finally {
            if (pin) {
              pin.depth = 0;
              pin.savepoints.length = 0;
            }
            writes.ended(connection);
          }
        };
      }
      // Bound to the driver itself: drivers keep private fields that a proxy receiver cannot reach.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * A read that bypasses the driver (QueuedSqliteDialect.read) under the same rules as the driver's
 * connections: refused inside a transaction, after the request's held commit, counted and observed.
 */
export function guardedRead(read: (query: CompiledQuery) => Promise<Record<string, unknown>[]>, counter: StatementCounter): (query: CompiledQuery) => Promise<Record<string, unknown>[]> {
  return async (query) => {
    await admitConnectionUse();
    // A pinned flow reads on its own connection (a direct read would wait for the pin's turn on SQLite).
    const pin = activePin();
    const pinned = pin && !pin.released ? pin.connection : undefined;
    if (pinned) return (await pinned.executeQuery(query)).rows as Record<string, unknown>[];
    countStatement(counter, query);
    return read(query);
  };
}
