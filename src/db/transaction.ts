import { AsyncLocalStorage } from 'node:async_hooks';
import type { DbExecutor } from './engine.ts';
import { isRetryable, retryPause } from './translate-error.ts';
import { currentGate, outsideGate, type CommitGate } from './commit-gate.ts';
import { inGroup, type Attempt, type GroupDatabase } from './group-commit.ts';
import { activePin, deferToPin, inPinnedTransaction } from './pinned-transaction.ts';

/**
 * Transactions and the work that must wait for their commit.
 *
 * Contract (architecture section 6):
 * - `inTransaction` runs a function in one transaction: everything it writes commits together or
 *   not at all. Deadlocks and serialisation failures are retried with a short, jittered pause;
 *   each attempt starts from scratch.
 * - `beforeCommit(db, fn)` registers work that must be written in the transaction `db` as late as
 *   possible, once its function has finished (the event log's rows, see src/event-log.ts).
 * - `afterCommit(db, fn)` registers work (events, cache invalidation) on the transaction `db`:
 *   it runs once, after the commit of the attempt that succeeded, and never for a rollback. Given
 *   a plain connection (no transaction), it runs at once.
 * - Inside a transaction nothing may wait for a second connection: SQLite has one, the pools are
 *   small, so a transaction waiting for another connection can wait for itself. The function runs
 *   in an async scope that the driver checks (`guardedDialect`): asking for a connection there
 *   fails loudly instead of hanging, and `assertNoTransaction` lets cached state refuse a reload.
 */
/** What a transaction needs of the database (database.ts's `Database` has it). */
export interface TransactionalDatabase extends GroupDatabase {
  /** Whether shared creations join a commit group (`Database.groupCommit`). */
  readonly groupCommit: boolean;
  readonly counter: { retries: number };
  /** Where an after-commit or after-rollback callback's failure goes. */
  reportError?: (error: unknown, what: string) => void;
}

interface TransactionState {
  /** Its own transaction (not a commit group's member, not held for a request's answer): its commit may carry statements. */
  ownCommit: boolean;
  beforeCommit: Array<() => Promise<void>>;
  afterCommit: Array<() => void>;
  afterRollback: Array<() => void | Promise<void>>;
  warnings: Warning[];
}

/**
 * Something a business operation did not do beside its main write, which the client should know
 * (an invoice saved without its accounting entry): `code` names it, the rest says why.
 */
export interface Warning {
  code: string;
  [detail: string]: unknown;
}

const scope = new AsyncLocalStorage<TransactionState>();
const states = new WeakMap<object, TransactionState>();

export class NestedConnectionError extends Error {
  override name = 'NestedConnectionError';
}

export interface TransactionOptions {
  attempts?: number;
  /**
   * Share the transaction, and its commit, with other operations that ask for one at the same
   * time (group-commit.ts), each in its own savepoint, where the database does
   * (`Database.groupCommit`): for frequent writes (document creation). A request whose answer is
   * kept with its write (an idempotency key's commit gate) runs in a transaction of its own.
   */
  shared?: boolean;
}

export async function inTransaction<T>(database: TransactionalDatabase, fn: (trx: DbExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  assertNoTransaction('a new transaction');
  const gate = currentGate();
  // Inside a pinned transaction (pinned-transaction.ts) this one is a savepoint of it: never retried
  // alone, never in a commit group, its commit not the end of the database's transaction.
  const pinned = activePin() !== undefined;
  if (gate?.takes()) return heldTransaction(database, gate, fn, options);
  const attempts = pinned ? 1 : (options.attempts ?? 8);
  if (options.shared && database.groupCommit && !gate && !pinned) return inGroup(database, () => memberAttempt(database, fn), attempts);
  for (let attempt = 1; ; attempt++) {
    const state = { ...newState(), ownCommit: !pinned };
    try {
      const result = await database.kysely.transaction().execute((trx) => runInState(trx, state, fn));
      committed(database, state);
      return result;
    } catch (error) {
      await undoAll(database, state.afterRollback);
      if (attempt >= attempts || !isRetryable(error)) throw error;
      database.counter.retries++;
      await retryPause(attempt);
    }
  }
}

/** A committed attempt's after-commit work: run now, or with the pinned transaction it belongs to (with its undo work). */
function committed(database: TransactionalDatabase, state: TransactionState): void {
  if (!deferToPin(state.afterCommit, state.afterRollback)) runAll(database, state.afterCommit);
}

/**
 * Runs `fn` with all the database work of its flow, whoever starts it, in one transaction that
 * commits when `fn` resolves and rolls back when it throws (pinned-transaction.ts): reads see the
 * flow's own writes, the transactions inside are savepoints, and their after-commit work waits for
 * this commit. Not retried: the caller may run the whole flow again.
 */
export function inOneTransaction<T>(database: TransactionalDatabase, fn: () => Promise<T>): Promise<T> {
  assertNoTransaction('a pinned transaction');
  return inPinnedTransaction(database.kysely, fn, {
    committed: (callbacks) => runAll(database, callbacks),
    rolledBack: (callbacks) => undoAll(database, callbacks),
  });
}

const newState = (): TransactionState => ({ ownCommit: false, beforeCommit: [], afterCommit: [], afterRollback: [], warnings: [] });

/** Runs `fn` on `trx` with `state` as its transaction's, then the before-commit work it registered. */
function runInState<T>(trx: DbExecutor, state: TransactionState, fn: (trx: DbExecutor) => Promise<T>): Promise<T> {
  states.set(trx, state);
  return scope.run(state, async () => {
    const value = await fn(trx);
    // Callbacks may register more callbacks: run until none is left.
    for (let i = 0; i < state.beforeCommit.length; i++) await state.beforeCommit[i]!();
    return value;
  });
}

/** One run of a group member (group-commit.ts): its own state, as a transaction of its own would have. */
function memberAttempt<T>(database: TransactionalDatabase, fn: (trx: DbExecutor) => Promise<T>): Attempt<T> {
  const state = newState();
  return {
    run: (trx) => runInState(trx, state, fn),
    committed: () => runAll(database, state.afterCommit),
    rolledBack: () => undoAll(database, state.afterRollback),
  };
}

/** Thrown inside a held transaction to roll it back (its request's answer is not kept). */
const ROLLBACK = Symbol('rollback');

/**
 * The first transaction of a request with a commit gate (commit-gate.ts): as `inTransaction`, but
 * once its function (and its before-commit work) has finished, its value goes to the caller while
 * the transaction stays open until the gate says how to end it. Failures before that are retried as
 * usual; a failure of the commit itself reaches the gate (the request answers an error instead).
 */
async function heldTransaction<T>(database: TransactionalDatabase, gate: CommitGate, fn: (trx: DbExecutor) => Promise<T>, options: TransactionOptions): Promise<T> {
  const attempts = activePin() ? 1 : (options.attempts ?? 8);
  for (let attempt = 1; ; attempt++) {
    const state = newState();
    let handOver!: (value: T) => void;
    const handed = new Promise<T>((resolve) => {
      handOver = resolve;
    });
    let settle!: { resolve: () => void; reject: (error: unknown) => void };
    const settled = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    settled.catch(() => {});
    // Outside the gate: this transaction's own connection must not wait for the gate's release.
    const run = outsideGate(() => database.kysely.transaction().execute((trx) => {
      states.set(trx, state);
      return scope.run(state, async () => {
        const value = await fn(trx);
        for (let i = 0; i < state.beforeCommit.length; i++) await state.beforeCommit[i]!();
        const finishing = gate.hold(settled);
        handOver(value);
        const finish = await finishing;
        if (finish.rollback) throw ROLLBACK;
        await finish.write?.(trx);
        return value;
      });
    }));
    const outcome = await Promise.race([handed.then((value) => ({ value })), run.then(() => ({}), (error: unknown) => ({ error }))]);
    if ('value' in outcome) {
      run.then(() => {
        committed(database, state);
        settle.resolve();
      }, async (error: unknown) => {
        await undoAll(database, state.afterRollback);
        settle.reject(error === ROLLBACK ? new Error('rolled back') : error);
      });
      return outcome.value as T;
    }
    const error = (outcome as { error?: unknown }).error;
    await undoAll(database, state.afterRollback);
    if (attempt >= attempts || !isRetryable(error)) {
      gate.untake();
      throw error;
    }
    database.counter.retries++;
    await retryPause(attempt);
  }
}

/**
 * Runs `fn` in `db`'s transaction once the transaction's function has finished, just before the
 * commit (in registration order; a failure rolls the transaction back). Returns false, and
 * registers nothing, when `db` is not a transaction of `inTransaction`.
 */
export function beforeCommit(db: DbExecutor, fn: () => Promise<void>): boolean {
  const state = states.get(db);
  if (!state) return false;
  state.beforeCommit.push(fn);
  return true;
}

/**
 * Whether statements may go with the COMMIT of `db`'s transaction (statement-batch.ts,
 * `deferToCommit`): only a transaction of its own, whose commit follows its function at once (a
 * commit group's member ends at a savepoint's release, a held one when its request answers).
 */
export function commitTail(db: DbExecutor): boolean {
  return states.get(db)?.ownCommit === true;
}

/** Runs `fn` after `db`'s transaction commits (never if it rolls back); at once outside a transaction. */
export function afterCommit(db: DbExecutor, fn: () => void): void {
  const state = states.get(db);
  if (state) state.afterCommit.push(fn);
  // A plain connection of a pinned flow is inside the pinned transaction: its commit decides.
  else if (!deferToPin([fn], [])) runAll(undefined, [fn]);
}

/**
 * Runs `fn` when `db`'s transaction attempt rolls back (never after a commit): undoes work done
 * beside the database, such as a file linked into place. Outside a transaction it never runs.
 */
export function afterRollback(db: DbExecutor, fn: () => void | Promise<void>): void {
  states.get(db)?.afterRollback.push(fn);
}

/**
 * Notes a warning on `db`'s transaction, for the operation's answer (`warningsOf`); outside a
 * transaction of `inTransaction` it is dropped (no answer carries it).
 */
export function addWarning(db: DbExecutor, warning: Warning): void {
  states.get(db)?.warnings.push(warning);
}

/** The warnings noted so far on `db`'s transaction (each attempt starts with none). */
export function warningsOf(db: DbExecutor): Warning[] {
  return [...(states.get(db)?.warnings ?? [])];
}

async function undoAll(database: TransactionalDatabase, work: Array<() => void | Promise<void>>): Promise<void> {
  for (const fn of work) {
    try {
      await outsideTransaction(fn);
    } catch (error) {
      (database.reportError ?? console.error)(error, 'after-rollback callback failed');
    }
  }
}

/**
 * Runs `fn` outside any transaction's scope: for event listeners, which may start database work
 * that outlives the transaction they were told about.
 */
export function outsideTransaction<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** True while the current async flow runs inside `inTransaction`. */
export function insideTransaction(): boolean {
  return scope.getStore() !== undefined;
}

/** Refuses work that would need a second connection while the current flow holds a transaction. */
export function assertNoTransaction(what: string): void {
  if (scope.getStore()) {
    throw new NestedConnectionError(`${what} was requested inside a transaction; read it before the transaction starts or through the transaction`);
  }
}

function runAll(database: TransactionalDatabase | undefined, callbacks: Array<() => void>): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch (error) {
      // The change is committed: a failing follower must not turn the client's success into an error.
      (database?.reportError ?? console.error)(error, 'after-commit callback failed');
    }
  }
}
