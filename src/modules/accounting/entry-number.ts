import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/**
 * One row per fiscal year (service bookkeeping): its row lock serialises the numbering of the year's
 * entries across instances, so that two entries never get one number.
 */
export const entryCounterModel = defineModel({
  name: 'ContadorAsientos',
  table: 'asientos_contadores',
  internal: true,
  fields: {
    codejercicio: f.string(4, { primary: true, references: f.ref('ejercicios', 'codejercicio', 'CASCADE') }),
  },
});

/**
 * Takes the year's counter lock (until the caller's transaction ends): entries are numbered under
 * it, and postings that add sub-accounts to the year's chart take it first, so that two never
 * pick one code.
 */
export async function chartLock(db: DbExecutor, dialect: SqlDialect, codejercicio: string): Promise<void> {
  // A lock this transaction holds already costs no second statement.
  const held = locksHeld.get(db) ?? new Set<string>();
  if (held.has(codejercicio)) return;
  const lock = () => dialect.locking(db.selectFrom('asientos_contadores').select('codejercicio').where('codejercicio', '=', codejercicio)).executeTakeFirst();
  if (!(await lock())) {
    await dialect.insertIgnore(db.insertInto('asientos_contadores').values({ codejercicio }), ['codejercicio']).execute();
    await lock();
  }
  // Remembered for a transaction only: a lock taken outside one ends with its statement.
  if (db.isTransaction) locksHeld.set(db, held.add(codejercicio));
}

/** The years whose lock each transaction holds (a transaction's executor lives as long as it does). */
const locksHeld = new WeakMap<DbExecutor, Set<string>>();

/**
 * The statement that takes the year's counter lock, creating its row when missing (an upsert
 * locks the row it meets): for a writer that sends statements together. Once it has run, tell
 * `heldChartLock` so that later work of the transaction does not take it again.
 */
export function chartLockStatement(db: DbExecutor, dialect: SqlDialect, codejercicio: string) {
  // SQLite has one writer: nothing to lock (`chartLock` adds the row when a sub-account needs it).
  if (dialect.engine === 'sqlite') return undefined;
  const insert = db.insertInto('asientos_contadores').values({ codejercicio });
  return dialect.engine === 'mysql'
    ? insert.onDuplicateKeyUpdate({ codejercicio: sql`codejercicio` })
    : insert.onConflict((oc) => oc.column('codejercicio').doUpdateSet({ codejercicio: sql`excluded.codejercicio` }));
}

/** Notes that the transaction `db` holds the year's counter lock (taken by `chartLockStatement`). */
export function heldChartLock(db: DbExecutor, codejercicio: string): void {
  if (db.isTransaction) locksHeld.set(db, (locksHeld.get(db) ?? new Set()).add(codejercicio));
}

/**
 * The next entry number of a fiscal year (the highest + 1, as the reference numbers), under the
 * year's counter lock, held until the caller's transaction ends. Both engines with row locks read
 * committed data after the lock (READ COMMITTED), so the highest number is the latest one.
 */
export async function nextEntryNumber(db: DbExecutor, dialect: SqlDialect, codejercicio: string): Promise<number> {
  await chartLock(db, dialect, codejercicio);
  const last = await db.selectFrom('asientos').select((eb) => eb.fn.max('numero').as('numero')).where('codejercicio', '=', codejercicio).executeTakeFirst();
  return Number(last?.numero ?? 0) + 1;
}
