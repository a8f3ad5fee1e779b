import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import type { DbExecutor } from './engine.ts';
import { isRetryable, retryPause } from './translate-error.ts';

/** What a group needs of a database: its root executor, whose transactions the group shares. */
export interface GroupDatabase {
  kysely: DbExecutor;
  /** Counts the group's runs again after a deadlock (the database's statement counter). */
  counter?: { retries: number };
  /** SQLite: the members' savepoints journaled in memory for the group's transaction (Database.groupJournal). */
  groupJournal?: { memory(): void; files(): void };
}

/**
 * Group commit: concurrent business operations of one kind share a transaction and its commit,
 * each inside its own savepoint (issue 28, item 2).
 *
 * Contract:
 * - A member runs as it would in a transaction of its own: what it writes, and its before-commit
 *   work, happen between `SAVEPOINT` and `RELEASE`, on a handle of the shared transaction that is
 *   its own (`$extendTables()`: same connection, another object), so what is registered on it
 *   (after-commit work, warnings) stays its own. It runs in the async context of its caller.
 * - A member that fails is rolled back to its savepoint alone (its numbers, its rows, its locks'
 *   effects are undone) and its caller gets its error at once; the others go on.
 * - The others' callers get their values once the shared transaction has committed, and their
 *   after-commit work runs then, in the order they ran. If the commit fails, every one of them gets
 *   the failure. A deadlock or serialisation failure runs all of them again from scratch in a new
 *   transaction, as `inTransaction` retries.
 * - No one waits to form a group: the first member starts a transaction at once, and those who
 *   arrive while it is open join it, up to `MAX_MEMBERS`, before it commits.
 */
export interface Attempt<T> {
  /** Runs the member's function (and its before-commit work) on its own handle of the transaction. */
  run(trx: DbExecutor): Promise<T>;
  /** The shared transaction committed. */
  committed(): void;
  /** The member's savepoint, or the whole transaction, rolled back. */
  rolledBack(): Promise<void>;
}

interface Member<T = unknown> {
  /** A fresh attempt: each run of the member starts from scratch. */
  attempt: () => Attempt<T>;
  /** Runs a function in the caller's async context (its request, its read routing ...). */
  resume: <R>(fn: () => R) => R;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  /** How many times its caller lets it run (a deadlocked group runs again while all that ran allow it). */
  attempts: number;
}

/** The members of an attempt that ran, in order, with their values. */
type Ran = Array<{ member: Member; run: Attempt<unknown>; value?: unknown }>;
/** The first member, refused: its failure rolled the whole transaction back. */
interface Refused { member: Member; run: Attempt<unknown>; error: unknown }

/** Enough to share a commit, few enough that a member never waits behind a long queue. */
export const MAX_MEMBERS = 16;

// The leader runs in the context this module was loaded in: no request's.
const neutral = AsyncLocalStorage.snapshot();

const groups = new WeakMap<GroupDatabase, CommitGroup>();

/** Runs a member in `database`'s commit group; resolves with its value once its work committed. */
export function inGroup<T>(database: GroupDatabase, attempt: () => Attempt<T>, attempts: number): Promise<T> {
  let group = groups.get(database);
  if (!group) groups.set(database, (group = new CommitGroup(database)));
  return group.join(attempt, attempts);
}

class CommitGroup {
  readonly #database: GroupDatabase;
  readonly #queue: Member[] = [];
  #leading = false;

  constructor(database: GroupDatabase) {
    this.#database = database;
  }

  join<T>(attempt: () => Attempt<T>, attempts: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ attempt, resume: AsyncLocalStorage.snapshot(), resolve, reject, attempts } as Member);
      if (!this.#leading) {
        this.#leading = true;
        neutral(() => void this.#lead());
      }
    });
  }

  async #lead(): Promise<void> {
    try {
      while (this.#queue.length) await this.#commit(this.#queue.splice(0, MAX_MEMBERS));
    } finally {
      this.#leading = false;
    }
  }

  /** One shared transaction for `first` and whoever joins while it runs, retried whole on a deadlock. */
  async #commit(first: Member[]): Promise<void> {
    let waiting = first;
    for (let attempt = 1; ; ) {
      const ran: Ran = [];
      let taken = waiting.length;
      const next = () => waiting.shift() ?? (taken++ < MAX_MEMBERS ? this.#queue.shift() : undefined);
      let refusedFirst: Refused | undefined;
      try {
        await this.#database.kysely.transaction().execute(async (trx) => {
          // The connection is the transaction's while this runs, and nothing is written yet. A
          // journal that cannot move (a temporary table open) stays where it was.
          const journal = this.#database.groupJournal;
          let moved = false;
          try {
            journal?.memory();
            moved = journal !== undefined;
          } catch {}
          try {
            await this.#members(trx, next, ran, (refused) => (refusedFirst = refused));
          } finally {
            if (moved) journal!.files();
          }
        });
      } catch (error) {
        for (const { run } of ran) await run.rolledBack();
        if (refusedFirst) {
          await refusedFirst.run.rolledBack();
          refusedFirst.member.reject(refusedFirst.error);
          if (!waiting.length) return;
          continue;
        }
        const again = [...ran.map(({ member }) => member), ...waiting];
        if (isRetryable(error) && again.every((member) => attempt < member.attempts)) {
          if (this.#database.counter) this.#database.counter.retries++;
          waiting = again;
          await retryPause(++attempt);
          continue;
        }
        // Those that ran share the failure; those that had not run yet try again in the next one,
        // unless nothing could run at all (the database is unreachable).
        const failed = ran.length ? ran.map(({ member }) => member) : waiting.splice(0);
        for (const member of failed) member.reject(error);
        this.#queue.unshift(...waiting);
        return;
      }
      for (const { member, run, value } of ran) {
        run.committed();
        member.resolve(value);
      }
      return;
    }
  }

  /** The members one after another in the group's transaction, each past the first in a savepoint of its own. */
  async #members(trx: DbExecutor, next: () => Member | undefined, ran: Ran, refuse: (refused: Refused) => void): Promise<void> {
    for (let member = next(); member; member = next()) {
      const run = member.attempt();
      const entry: (typeof ran)[number] = { member, run };
      // The first member needs no savepoint: its failure rolls back a transaction that holds
      // nothing else (an uncontended creation runs the statements it ran alone).
      const first = !ran.length;
      ran.push(entry);
      // A turn of the event loop between members. libuv accepts one new connection per turn (one
      // accept per readiness of the listening socket), and on SQLite a whole group otherwise runs
      // as one chain of microtasks: a burst of new connections to a busy server was admitted one
      // per group (25-30 ms each, the last of 50 after a second), one per member now.
      if (!first) {
        await new Promise((resolve) => setImmediate(resolve));
        await sql`SAVEPOINT group_member`.execute(trx);
      }
      try {
        entry.value = await member.resume(() => run.run(trx.$extendTables()));
      } catch (error) {
        // A retryable failure (deadlock) is the transaction's: all of it runs again.
        if (isRetryable(error)) throw error;
        ran.pop();
        if (first) {
          refuse({ member, run, error });
          throw error;
        }
        await this.#undo(trx, run).finally(() => member.reject(error));
        continue;
      }
      if (!first) await sql`RELEASE SAVEPOINT group_member`.execute(trx);
    }
  }

  /** Rolls a failed member back to its savepoint; a failure here is the transaction's. */
  async #undo(trx: DbExecutor, run: Attempt<unknown>): Promise<void> {
    try {
      await sql`ROLLBACK TO SAVEPOINT group_member`.execute(trx);
      await sql`RELEASE SAVEPOINT group_member`.execute(trx);
    } finally {
      await run.rolledBack();
    }
  }
}
