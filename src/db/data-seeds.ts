import type { AppContext } from '../app-context.ts';
import { AppError } from '../errors.ts';
import { now } from '../models/fields.ts';
import type { DbExecutor } from './database.ts';
import { inTransaction } from './transaction.ts';

/**
 * Default data, loaded once per database: each seed runs in one transaction that first writes its
 * marker into `schema_migrations` (as `seed:<id>`). A second start finds the marker and adds
 * nothing; rows a user deleted later stay deleted. Two instances starting at once serialise on the
 * marker's key: the loser's insert fails as a duplicate, it rolls back and skips.
 */
export interface DataSeed {
  id: string;
  /** Loads the data; `false` means there was nothing to load (the seed is still marked done). */
  run(ctx: AppContext, trx: DbExecutor): Promise<void | boolean>;
}

/** Runs the seeds not yet marked, in order; returns the ids of those that loaded something. */
export async function runSeeds(ctx: AppContext, seeds: DataSeed[]): Promise<string[]> {
  const db = ctx.database.kysely;
  const applied = new Set(
    (await db.selectFrom('schema_migrations').select('id').where('id', 'like', 'seed:%').execute()).map((row) => String(row.id)),
  );
  const ran: string[] = [];
  for (const seed of seeds) {
    const id = `seed:${seed.id}`;
    if (applied.has(id)) continue;
    try {
      const loaded = await inTransaction(ctx.database, async (trx) => {
        await trx.insertInto('schema_migrations').values({ id, applied_at: now() }).execute();
        return seed.run(ctx, trx);
      });
      if (loaded !== false) ran.push(seed.id);
    } catch (error) {
      const raced = await db.selectFrom('schema_migrations').select('id').where('id', '=', id).executeTakeFirst();
      if (raced) continue;
      throw error instanceof AppError ? new Error(`default data "${seed.id}" failed: ${JSON.stringify(error.body())}`, { cause: error }) : error;
    }
  }
  return ran;
}
