import { AsyncLocalStorage } from 'node:async_hooks';
import type { DbExecutor } from './database.ts';

/**
 * A commit gate lets an HTTP request's answer be written in the same transaction as the request's
 * write (idempotency keys, src/http/idempotency.ts): the first transaction a request runs inside its
 * gate does not commit when its function returns. It hands its value to the caller and waits, open,
 * until the request's answer is known. Then it writes that answer with `finish` and commits; if the
 * answer is an error that must not be kept, it rolls back. A crash therefore never leaves a write
 * without its stored answer, nor an answer without its write.
 *
 * If the request asks for another database connection while its transaction is held (a second
 * transaction, or a read after the write), the held transaction is committed first, with `finish`
 * given no answer: the request goes on, and its answer is stored afterwards.
 */
export interface GateFinish {
  /** The request's answer, to be written in the held transaction; none when it was released early. */
  write?(trx: DbExecutor): Promise<void>;
  /** Roll the held transaction back instead (an answer that must not be kept: a 5xx). */
  rollback?: boolean;
}

export type GateState = 'open' | 'held' | 'committed' | 'rolled-back' | 'failed';

export class CommitGate {
  #state: GateState = 'open';
  #finish: ((finish: GateFinish) => void) | undefined;
  #settled: Promise<void> | undefined;
  #markWritten: (trx: DbExecutor) => Promise<void>;

  /** `markWritten` records, in the held transaction, that the write committed without its answer. */
  constructor(markWritten: (trx: DbExecutor) => Promise<void>) {
    this.#markWritten = markWritten;
  }

  get state(): GateState {
    return this.#state;
  }

  /** Whether a transaction starting now should be held (the request's first). */
  takes(): boolean {
    return this.#state === 'open';
  }

  /**
   * Called by the held transaction once its function has returned: resolves when the request's
   * answer (or a release) says how to end it. `settled` resolves once the transaction has ended.
   */
  hold(settled: Promise<void>): Promise<GateFinish> {
    this.#state = 'held';
    this.#settled = settled.then(() => {
      if (this.#state === 'held') this.#state = 'committed';
    }, (error: unknown) => {
      if (this.#state === 'held') this.#state = 'failed';
      throw error;
    });
    return new Promise((resolve) => {
      this.#finish = resolve;
    });
  }

  /** Ends the held transaction with the request's answer (or its rollback); resolves once it committed, rejects if it failed. */
  async end(finish: GateFinish): Promise<void> {
    if (this.#state !== 'held') return;
    if (finish.rollback) this.#state = 'rolled-back';
    this.#finish!(finish);
    try {
      await this.#settled;
    } catch (error) {
      if (!finish.rollback) throw error;
    }
  }

  /** Commits a held transaction now, marked written without an answer (the request needs the database again). */
  async release(): Promise<void> {
    if (this.#state !== 'held') return;
    this.#finish!({ write: this.#markWritten });
    await this.#settled;
    // Still 'committed': the answer is stored later, on its own.
  }
}

const gates = new AsyncLocalStorage<CommitGate>();

/** Runs `fn` (a request's handler) with its gate. */
export function withGate<T>(gate: CommitGate, fn: () => T): T {
  return gates.run(gate, fn);
}

/** The gate of the request running now, if any. */
export function currentGate(): CommitGate | undefined {
  return gates.getStore();
}
