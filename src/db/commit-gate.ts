import { AsyncLocalStorage } from 'node:async_hooks';
import type { DbExecutor } from './engine.ts';

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

export type GateState = 'open' | 'taken' | 'held' | 'committed' | 'rolled-back' | 'failed';

export class CommitGate {
  #state: GateState = 'open';
  #finish: ((finish: GateFinish) => void) | undefined;
  #settled: Promise<void> | undefined;
  #markWritten: (trx: DbExecutor) => Promise<void>;
  /** The request answered while its taken transaction was still running: woken once it is held (or gave the gate up). */
  #answerWaiting: (() => void) | undefined;
  /** Asked for while the taken transaction was still running: it commits as soon as it is held. */
  #releaseWanted: { promise: Promise<void>; resolve: () => void } | undefined;

  /** `markWritten` records, in the held transaction, that the write committed without its answer. */
  constructor(markWritten: (trx: DbExecutor) => Promise<void>) {
    this.#markWritten = markWritten;
  }

  get state(): GateState {
    return this.#state;
  }

  /** Whether a transaction starting now is to be held (the request's first): claims the gate at once, so that two started together are not both held. */
  takes(): boolean {
    if (this.#state !== 'open') return false;
    this.#state = 'taken';
    return true;
  }

  /** The taken gate's transaction failed before it was held: the next one may take it (a retry, or none). */
  untake(): void {
    if (this.#state === 'taken') this.#state = 'open';
    this.#releaseWanted?.resolve();
    this.#releaseWanted = undefined;
    this.#wakeAnswer();
  }

  #wakeAnswer(): void {
    const wake = this.#answerWaiting;
    this.#answerWaiting = undefined;
    wake?.();
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
    const finishing = new Promise<GateFinish>((resolve) => {
      this.#finish = resolve;
    });
    this.#wakeAnswer();
    const wanted = this.#releaseWanted;
    if (wanted) {
      // Something of the request waits for a connection: this transaction does not wait for the answer.
      this.#releaseWanted = undefined;
      this.#finish!({ write: this.#markWritten });
      this.#settled.then(wanted.resolve, wanted.resolve);
    }
    return finishing;
  }

  /** Ends the held transaction with the request's answer (or its rollback); resolves once it committed, rejects if it failed. */
  async end(finish: GateFinish): Promise<void> {
    // Answered while the first transaction still runs (beside the handler): that transaction is
    // ended by this answer once it is held, rather than left waiting for an answer already given.
    if (this.#state === 'taken') await new Promise<void>((resolve) => (this.#answerWaiting = resolve));
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
    if (this.#state === 'taken') {
      // The request's transaction is still running (something of the request runs beside it): it
      // will commit once held, and then this may have the connection.
      this.#releaseWanted ??= (() => {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => (resolve = done));
        return { promise, resolve };
      })();
      await this.#releaseWanted.promise;
      return;
    }
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

/** Runs `fn` outside any gate: the held transaction itself (its own connection must not wait for its release). */
export function outsideGate<T>(fn: () => T): T {
  return gates.exit(fn);
}

/** The gate of the request running now, if any. */
export function currentGate(): CommitGate | undefined {
  return gates.getStore();
}
