import type { Database, DbExecutor } from './database.ts';
import { isRetryable } from './translate-error.ts';

/**
 * Runs `fn` in one transaction: everything it writes commits together or not at all. Deadlocks
 * and serialisation failures are retried a few times with a short, jittered pause.
 */
export async function inTransaction<T>(database: Database, fn: (trx: DbExecutor) => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await database.kysely.transaction().execute(fn);
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}
