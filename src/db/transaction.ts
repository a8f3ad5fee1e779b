import type { Database, DbExecutor } from './database.ts';
import { isRetryable } from './translate-error.ts';

/**
 * Runs `fn` in one transaction: everything it writes commits together or not at all. Deadlocks
 * and serialisation failures are retried a few times with a short, jittered pause.
 */
export interface TransactionOptions {
  attempts?: number;
  /**
   * READ COMMITTED lets a transaction see rows committed after it began once it holds a lock
   * (MySQL's default REPEATABLE READ would keep its first snapshot). SQLite has one writer anyway.
   */
  readCommitted?: boolean;
}

export async function inTransaction<T>(database: Database, fn: (trx: DbExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    try {
      const builder = database.kysely.transaction();
      return await (options.readCommitted && database.engine !== 'sqlite' ? builder.setIsolationLevel('read committed') : builder).execute(fn);
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}
