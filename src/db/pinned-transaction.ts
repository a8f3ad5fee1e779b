import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseConnection } from 'kysely';
import type { DbExecutor } from './engine.ts';

/**
 * One transaction that all the database work of an async flow joins, whoever starts it: an atomic
 * batch (src/modules/batch/) runs whole requests, each with its own reads, transactions and
 * idempotency claims, and all of them must commit together or not at all.
 *
 * Contract:
 * - Inside `inPinnedTransaction`, every connection the driver hands out is the pinned one
 *   (guarded-dialect.ts), so plain reads see the flow's own uncommitted writes, and a transaction
 *   begun on it is a SAVEPOINT: its rollback undoes only its own work, its commit releases it.
 *   Savepoint transactions take turns (one at a time) so that their savepoints nest.
 * - Work registered to run after a transaction's commit (events, cache bumps) waits for the pinned
 *   transaction's commit, and work to undo on rollback runs if the pinned transaction rolls back
 *   (transaction.ts asks `deferToPin`).
 * - No commit group is joined (another request's work must never enter this transaction) and a
 *   failed savepoint transaction is not retried: a deadlock fails the flow, which the caller may
 *   run again whole.
 * - Once the pinned transaction has ended, work the flow left behind (a timer) uses connections as
 *   usual.
 */
export interface Pin {
  /** The flow's connection, kept after it went back to the driver (`released`) so that a late use of it is recognised. */
  connection?: DatabaseConnection;
  released: boolean;
  /** 0: no transaction yet (or ended); 1: the pinned transaction; more: savepoints inside it. */
  depth: number;
  savepoints: string[];
  ended: boolean;
  /** The flow's function has returned or thrown: the next transaction end on the connection is the pinned one's, whatever is still open inside it. */
  closing: boolean;
  afterCommit: Array<() => void>;
  afterRollback: Array<() => void | Promise<void>>;
  /** What the flow loaded of shared caches (shared-state.ts), for the flow only. */
  cacheReads: Map<string, Promise<unknown>>;
  /** Set when a savepoint could not be rolled back (the enclosing transaction is gone): the pinned transaction may only roll back. */
  broken?: unknown;
  /** The savepoint transactions' turn: each begin waits for the previous one to end. */
  turn: Promise<void>;
  endTurn?: () => void;
}

const pins = new AsyncLocalStorage<Pin>();
let savepointCount = 0;

/** The pinned transaction the current flow belongs to, while it runs. */
export function activePin(): Pin | undefined {
  const pin = pins.getStore();
  return pin && !pin.ended ? pin : undefined;
}

/** The pin of the current flow whose connection `connection` is, ended or not (a late release of it must not reach the driver twice). */
export function pinOfConnection(connection: DatabaseConnection): Pin | undefined {
  const pin = pins.getStore();
  return pin?.connection === connection ? pin : undefined;
}

/**
 * A shared cache's value as a pinned flow must see it: loaded on the flow's connection and kept for
 * the flow only, until the flow writes the cache's models. Never the process-wide copy: a value or
 * a promise it holds may be filled or awaited by another flow, which on SQLite waits for this one's
 * connection (a deadlock), and what the flow reads may roll back, so it must not reach that copy.
 */
export function pinnedCacheRead<T>(pin: Pin, name: string, load: () => Promise<T>): Promise<T> {
  let read = pin.cacheReads.get(name) as Promise<T> | undefined;
  if (!read) {
    read = load();
    pin.cacheReads.set(name, read);
    read.catch(() => pin.cacheReads.delete(name));
  }
  return read;
}

/** A pinned flow wrote the models behind the shared cache `name`: its later reads load them again. */
export function pinWroteCache(name: string): void {
  activePin()?.cacheReads.delete(name);
}

/** A new savepoint's name, unique in the process. */
function nextSavepoint(): string {
  savepointCount = (savepointCount + 1) % 1_000_000_000;
  return `pin_${savepointCount}`;
}

type Run = (text: string) => Promise<unknown>;

/** Begins a transaction inside the pinned one: a savepoint, in its turn. */
export async function beginSavepoint(pin: Pin, run: Run): Promise<void> {
  await takeTurn(pin);
  // Nothing more inside a transaction that is ending, or that the database already ended.
  const refusal = pin.closing ? 'is ending' : pin.broken !== undefined ? 'lost a savepoint and can only roll back' : undefined;
  if (refusal) {
    giveTurn(pin);
    throw new Error(`the pinned transaction ${refusal}`, { cause: pin.broken });
  }
  const name = nextSavepoint();
  try {
    await run(`SAVEPOINT ${name}`);
  } catch (error) {
    giveTurn(pin);
    throw error;
  }
  pin.savepoints.push(name);
  pin.depth++;
}

/**
 * Ends the innermost savepoint. A release that fails leaves it open for the rollback the caller
 * sends next; a rollback that fails (MariaDB ended the whole transaction on a deadlock, PostgreSQL's
 * is aborted) marks the pin broken and lets the first error go on: the pinned transaction will
 * refuse to commit.
 */
export async function endSavepoint(pin: Pin, rollback: boolean, run: Run): Promise<void> {
  const name = pin.savepoints.at(-1)!;
  if (!rollback) await run(`RELEASE SAVEPOINT ${name}`);
  else {
    try {
      await run(`ROLLBACK TO SAVEPOINT ${name}`);
      await run(`RELEASE SAVEPOINT ${name}`);
    } catch (error) {
      pin.broken ??= error;
    }
  }
  pin.savepoints.pop();
  pin.depth--;
  giveTurn(pin);
}

/** Waits for the pin's savepoint turn and takes it. */
async function takeTurn(pin: Pin): Promise<void> {
  for (;;) {
    const turn = pin.turn;
    await turn;
    if (pin.turn === turn) break;
  }
  pin.turn = new Promise((resolve) => {
    pin.endTurn = resolve;
  });
}

function giveTurn(pin: Pin): void {
  const end = pin.endTurn;
  pin.endTurn = undefined;
  end?.();
}

/**
 * Where a committed savepoint transaction's after-commit and after-rollback work goes: to the
 * pinned transaction's lists, to run when it ends. False outside a pin (the caller runs it itself).
 */
export function deferToPin(afterCommit: Array<() => void>, afterRollback: Array<() => void | Promise<void>>): boolean {
  const pin = activePin();
  if (!pin) return false;
  pin.afterCommit.push(...afterCommit);
  pin.afterRollback.push(...afterRollback);
  return true;
}

/**
 * Runs `fn` with every database use of its flow inside one transaction (see above). `ends` runs the
 * deferred callbacks, outside the pin, once the transaction committed or rolled back.
 */
export async function inPinnedTransaction<T>(kysely: DbExecutor, fn: () => Promise<T>, ends: {
  committed(callbacks: Array<() => void>): void;
  rolledBack(callbacks: Array<() => void | Promise<void>>): Promise<void>;
}): Promise<T> {
  if (activePin()) throw new Error('a pinned transaction cannot hold another');
  const pin: Pin = { depth: 0, savepoints: [], released: false, ended: false, closing: false, afterCommit: [], afterRollback: [], cacheReads: new Map(), turn: Promise.resolve() };
  let value: T;
  try {
    value = await pins.run(pin, () => kysely.transaction().execute(async () => {
      try {
        return await fn();
      } finally {
        // A transaction the flow left open (not awaited) ends before the pinned one commits or
        // rolls back; the turn is kept through that end, so that none begins meanwhile.
        await takeTurn(pin);
        pin.closing = true;
      }
    }));
  } catch (error) {
    await pins.exit(() => ends.rolledBack(pin.afterRollback));
    throw error;
  } finally {
    pin.ended = true;
    giveTurn(pin);
  }
  pins.exit(() => ends.committed(pin.afterCommit));
  return value;
}
