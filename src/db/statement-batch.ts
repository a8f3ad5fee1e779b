import { CompiledQuery, type Compilable, type QueryResult, type RawBuilder } from 'kysely';
import type { DatabaseConnection } from 'kysely';
import type { DbExecutor, Engine } from './engine.ts';

/**
 * Statements of one transaction sent to the database together, in one round trip where the engine
 * allows it, and run in the order they were added (so locks are taken in that order):
 * - PostgreSQL: pipelined (the pool's clients run in pipeline mode): every statement is written
 *   before the first answer is read. A failed statement aborts the transaction, so those after it
 *   fail too; the first failure is the batch's.
 * - MariaDB/MySQL: one multi-statement query (the pool allows them); the server stops at the
 *   first failure. Parameters are bound as in any other query (the driver escapes them).
 * - SQLite: one after another on the one connection; there is no round trip to save.
 *
 * `add` answers a promise of the statement's result, settled by the next `flush`. A statement
 * that depends on another's result belongs to a later flush; within one, later statements may
 * read what earlier ones wrote (the same transaction).
 */
/** What a batch takes: a query builder, raw SQL (`sql` template), or a compiled query. */
export type Statement<R = Record<string, unknown>> = Compilable<R> | RawBuilder<R> | CompiledQuery<R>;

/** A statement as the driver runs it. */
export function compileStatement<R>(db: DbExecutor, query: Statement<R>): CompiledQuery<R> {
  return ('isRawBuilder' in query ? query.compile(db) : 'compile' in query ? (query as Compilable<R>).compile() : query) as CompiledQuery<R>;
}

export class StatementBatch {
  readonly #db: DbExecutor;
  readonly #engine: Engine;
  #queued: Array<{ query: CompiledQuery; resolve: (result: QueryResult<Row>) => void; reject: (error: unknown) => void }> = [];
  #commits = false;
  /** Applied to every statement added from when it is set (a document's late number: its placeholders replaced in SQL). */
  rewrite?: (query: CompiledQuery) => CompiledQuery;

  constructor(db: DbExecutor, engine: Engine) {
    this.#db = db;
    this.#engine = engine;
  }

  /** Queues a statement for the next flush. */
  add<R = Row>(query: Statement<R>): Promise<QueryResult<R>> {
    const compiled = this.rewrite ? this.rewrite(compileStatement(this.#db, query) as CompiledQuery) : compileStatement(this.#db, query);
    const result = new Promise<QueryResult<R>>((resolve, reject) => {
      this.#queued.push({ query: compiled as CompiledQuery, resolve: resolve as (result: QueryResult<Row>) => void, reject });
    });
    // `flush` throws the first failure itself: a statement's promise nobody awaits must not end the
    // process as an unhandled rejection (one that is awaited still rejects).
    result.catch(() => {});
    return result;
  }

  /**
   * Ends the next flush with the transaction's COMMIT, in its round trip (PostgreSQL and MariaDB;
   * docs/performance.md, "Committing with the batch"). Only for a transaction of its own
   * (transaction.ts, `commitTail`) whose every refusal fails a statement of the batch
   * (guard-sql.ts): a failure anywhere ends the batch before the COMMIT takes effect (PostgreSQL
   * answers it with ROLLBACK, MariaDB never runs it), and the transaction rolls back as usual. Once
   * the flush succeeds the transaction is over: its driver's COMMIT is skipped, and a statement
   * sent on its connection after it is refused (guarded-dialect.ts).
   */
  commit(): void {
    this.#commits = true;
    this.add(CompiledQuery.raw('COMMIT'));
  }

  /** How many statements wait for the next flush. */
  get size(): number {
    return this.#queued.length;
  }

  /** Sends the queued statements and settles their promises; throws the first failure. */
  async flush(): Promise<void> {
    const queued = this.#queued;
    this.#queued = [];
    if (!queued.length) return;
    let results: Array<QueryResult<Row> | Failure>;
    if (queued.length === 1 || this.#engine === 'sqlite') results = await sequential(this.#db, queued.map((entry) => entry.query));
    else if (this.#engine === 'postgres') results = await pipelined(this.#db, queued.map((entry) => entry.query));
    else results = await multiStatement(this.#db, queued.map((entry) => entry.query));
    let first: unknown;
    results.forEach((result, index) => {
      if (result instanceof Failure) {
        first ??= result.error;
        queued[index]!.reject(result.error);
      } else {
        queued[index]!.resolve(result);
      }
    });
    if (first !== undefined) throw first;
    if (this.#commits) {
      this.#commits = false;
      await this.#db.getExecutor().provideConnection(async (connection) => void committedByBatch.add(connection));
    }
  }
}

/** Connections whose transaction a batch's COMMIT ended (`StatementBatch.commit`): the driver's end of it is skipped. */
export const committedByBatch = new WeakSet<DatabaseConnection>();

type Row = Record<string, unknown>;

/** A statement that failed, or did not run because one before it failed. */
class Failure {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

const notRun = (error: unknown) => new Failure(Object.assign(new Error('not run: an earlier statement of its batch failed'), { cause: error }));

/** One after another on the transaction's connection, taken once for the batch (no plugin transforms a result here). */
async function sequential(db: DbExecutor, queries: CompiledQuery[]): Promise<Array<QueryResult<Row> | Failure>> {
  return db.getExecutor().provideConnection(async (connection) => {
    const results: Array<QueryResult<Row> | Failure> = [];
    let failed: Failure | undefined;
    for (const query of queries) {
      if (failed) {
        results.push(notRun(failed.error));
        continue;
      }
      try {
        results.push(await connection.executeQuery<Row>(query));
      } catch (error) {
        results.push((failed = new Failure(error)));
      }
    }
    return results;
  });
}

/** Statements after the first of a pipelined batch: they travel in its round trip (guarded-dialect.ts counts them so). */
export const pipelinedFollowers = new WeakSet<CompiledQuery>();

async function pipelined(db: DbExecutor, queries: CompiledQuery[]): Promise<Array<QueryResult<Row> | Failure>> {
  return db.getExecutor().provideConnection(async (connection) => {
    queries.slice(1).forEach((query) => pipelinedFollowers.add(query));
    const settled = await Promise.allSettled(queries.map((query) => connection.executeQuery<Row>(query)));
    return settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : new Failure(outcome.reason)));
  });
}

/** A multi-statement query's parts (guarded-dialect.ts counts and shows each). */
export const batchParts = new WeakMap<CompiledQuery, readonly CompiledQuery[]>();

interface ResultHeader {
  affectedRows?: number;
  insertId?: number | bigint;
}

async function multiStatement(db: DbExecutor, queries: CompiledQuery[]): Promise<Array<QueryResult<Row> | Failure>> {
  const combined = CompiledQuery.raw(queries.map((query) => query.sql).join(';\n'), queries.flatMap((query) => [...query.parameters]));
  batchParts.set(combined, queries);
  let answers: unknown[];
  try {
    answers = (await db.executeQuery(combined)).rows as unknown[];
  } catch (error) {
    // The server ran the statements before the failing one and none after: which one failed is not
    // said, so every one shares the failure (the transaction rolls back anyway).
    return queries.map(() => new Failure(error));
  }
  return queries.map((_, index) => {
    const answer = answers[index];
    if (Array.isArray(answer)) return { rows: answer as Row[] };
    const header = (answer ?? {}) as ResultHeader;
    return {
      rows: [],
      numAffectedRows: header.affectedRows === undefined ? undefined : BigInt(header.affectedRows),
      insertId: header.insertId === undefined || String(header.insertId) === '0' ? undefined : BigInt(header.insertId),
    };
  });
}

/** Connections whose COMMIT is being written right behind its tail (PostgreSQL): it travels in the tail's round trip. */
export const commitFollowsTail = new WeakSet<DatabaseConnection>();

/** Statements that go to the database with their transaction's COMMIT (guarded-dialect.ts sends them), by connection. */
export const commitTails = new WeakMap<DatabaseConnection, CompiledQuery[]>();

/**
 * Queues statements to go with the COMMIT of `db`'s transaction, in the commit's round trip
 * (PostgreSQL: pipelined before it; MariaDB: one multi-statement query ending with it; SQLite: run
 * before it). Nothing is answered of them: a failure fails the commit, and the transaction rolls
 * back as for any failed commit. For the last writes of a transaction whose results nobody reads
 * (its events); the caller decides that its transaction may (transaction.ts, `commitTail`).
 */
export async function deferToCommit(db: DbExecutor, statements: Statement<unknown>[]): Promise<void> {
  const compiled = statements.map((query) => compileStatement(db, query) as CompiledQuery);
  await db.getExecutor().provideConnection(async (connection) => {
    commitTails.set(connection, [...(commitTails.get(connection) ?? []), ...compiled]);
  });
}

/**
 * Runs `commit` (the driver's) with the statements deferred to it on `connection`, in one round
 * trip where the engine allows; the first failure among them is the commit's.
 */
export async function commitWithTail(connection: DatabaseConnection, engine: Engine, commit: () => Promise<void>): Promise<void> {
  const tail = commitTails.get(connection);
  commitTails.delete(connection);
  if (!tail?.length) return commit();
  if (engine === 'postgres') {
    // Written before the COMMIT, answered before it: PostgreSQL ends an aborted transaction's COMMIT
    // with ROLLBACK (the driver throws), and the statement's own error is the one to report.
    // Counted in the commit's round trip (guarded-dialect.ts).
    const sent = tail.map((query, index) => {
      if (index) pipelinedFollowers.add(query);
      return connection.executeQuery(query);
    });
    sent.forEach((result) => result.catch(() => {}));
    commitFollowsTail.add(connection);
    const committed = commit();
    commitFollowsTail.delete(connection);
    committed.catch(() => {});
    const settled = await Promise.allSettled(sent);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    await committed.catch((error: unknown) => {
      throw failed ? failed.reason : error;
    });
    if (failed) throw failed.reason;
    return;
  }
  if (engine === 'mysql') {
    const combined = CompiledQuery.raw([...tail.map((query) => query.sql), 'COMMIT'].join(';\n'), tail.flatMap((query) => [...query.parameters]));
    batchParts.set(combined, [...tail, CompiledQuery.raw('commit')]);
    await connection.executeQuery(combined);
    return;
  }
  for (const query of tail) await connection.executeQuery(query);
  await commit();
}
