import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { insertedId } from '../../db/inserted-id.ts';
import { AppError } from '../../errors.ts';
import { dec, roundNumber } from '../../models/round.ts';
import { moveBalances } from './balances.ts';
import { chartLock, nextEntryNumber } from './entry-number.ts';
import { entryRefusalOf } from './entry-statements.ts';
import type { NewEntry, NewEntryLine } from './new-entry.ts';

/** Whether the lines balance: their debits and credits agree to `decimals` places. */
export function isBalanced(lines: readonly Pick<NewEntryLine, 'debe' | 'haber'>[], decimals: number): boolean {
  const debe = lines.reduce((sum, line) => sum.plus(dec(line.debe)), dec(0));
  const haber = lines.reduce((sum, line) => sum.plus(dec(line.haber)), dec(0));
  return roundNumber(debe.minus(haber), decimals) === 0;
}

/** The refusal of an entry that would not balance: a fault (500), never written, the whole operation refused. */
export function unbalanced(what: string, id: number, lines: readonly NewEntryLine[]): Error {
  const sum = (side: 'debe' | 'haber') => lines.reduce((total, line) => total.plus(dec(line[side])), dec(0)).toString();
  return new Error(`the accounting entry of ${what} ${id} would not balance (debe ${sum('debe')}, haber ${sum('haber')})`);
}

/**
 * Writes a balanced entry with its lines in the caller's transaction: numbered as the year's next
 * (under the year's counter lock), lines in one statement, balances moved. The caller has checked
 * that the year is open and the date outside locked settlements (`entryRefusal`). Returns its id.
 */
export async function writeEntry(db: DbExecutor, dialect: SqlDialect, entry: NewEntry, lines: readonly NewEntryLine[]): Promise<number> {
  const numero = await nextEntryNumber(db, dialect, entry.codejercicio);
  const idasiento = await insertedId(dialect.engine, db.insertInto('asientos').values({ ...entry, numero, editable: dialect.boolean(true), operacion: null }), 'idasiento');
  const rows = lines.map((line, orden) => ({
    idasiento, orden, punteada: dialect.boolean(false), saldo: 0, tasaconv: 1, baseimponible: 0, iva: 0, recargo: 0, ...line,
  }));
  await db.insertInto('partidas').values(rows).execute();
  await moveBalances(db, lines);
  return idasiento;
}

/**
 * Why an entry cannot be written or removed on `fecha` in `codejercicio` (closed year, locked
 * settlement), if it cannot. Asked under the year's chart lock (taken here, held until the caller's
 * transaction ends), so that the year cannot close between the answer and the write.
 */
export async function entryRefusal(db: DbExecutor, dialect: SqlDialect, codejercicio: string, fecha: string): Promise<'closed-exercise' | 'locked-settlement' | undefined> {
  await chartLock(db, dialect, codejercicio);
  return entryRefusalOf(db, dialect, codejercicio, fecha);
}

/**
 * Deletes entries (by id) with their lines, moving the balances back, in the caller's transaction;
 * refused whole (409 `entry-locked`) when one of them is in a closed year or a locked settlement.
 * Years are locked in code order. Ids of entries that no longer exist are ignored.
 */
export async function removeEntries(db: DbExecutor, dialect: SqlDialect, ids: readonly number[]): Promise<void> {
  const wanted = [...new Set(ids.filter((id) => Number.isInteger(id)))];
  if (!wanted.length) return;
  const entries = await db.selectFrom('asientos').select(['idasiento', 'codejercicio', 'fecha']).where('idasiento', 'in', wanted).orderBy('codejercicio').execute();
  for (const entry of entries) {
    const refusal = await entryRefusal(db, dialect, String(entry.codejercicio), String(entry.fecha));
    if (refusal) throw new AppError('entry-locked', { idasiento: Number(entry.idasiento), codejercicio: String(entry.codejercicio), reason: refusal });
  }
  const found = entries.map((entry) => Number(entry.idasiento));
  if (!found.length) return;
  await deleteEntryLines(db, found);
  await db.deleteFrom('asientos').where('idasiento', 'in', found).execute();
}

/** Deletes the lines of entries, moving their sub-accounts' and accounts' balances back. */
export async function deleteEntryLines(db: DbExecutor, idasientos: readonly number[]): Promise<void> {
  const lines = await db.selectFrom('partidas').select(['idsubcuenta', 'debe', 'haber']).where('idasiento', 'in', [...idasientos]).execute();
  await db.deleteFrom('partidas').where('idasiento', 'in', [...idasientos]).execute();
  await moveBalances(db, [], lines);
}
