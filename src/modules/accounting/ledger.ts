import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { AppError } from '../../errors.ts';
import { exerciseOf, type ExerciseFacts } from '../fiscal/index.ts';

/**
 * Reads the accounting models share: the fiscal year a record belongs to (refused when closed),
 * sub-account lookups and the locks of VAT settlements (balances are balances.ts's).
 */

/** The fiscal year `codejercicio`; a closed one refuses every change to its accounting (`exercise-closed`). */
export async function openExercise(db: DbExecutor, codejercicio: unknown): Promise<ExerciseFacts | undefined> {
  if (typeof codejercicio !== 'string' || codejercicio === '') return undefined;
  const exercise = await exerciseOf(db, codejercicio);
  if (exercise && exercise.estado !== 'ABIERTO') throw new AppError('exercise-closed', { codejercicio });
  return exercise;
}

/**
 * A new sub-account code written with a dot (`43.1`): the part before the dot is padded with zeros
 * on the right so that the whole code has the year's length (`4300000001` for length 10).
 */
export function expandSubaccountCode(code: string, length: number): string {
  const parts = code.trim().split('.');
  if (parts.length !== 2) return code.trim();
  return parts[0]!.padEnd(length - parts[1]!.length, '0') + parts[1];
}

export interface SubaccountRow {
  idsubcuenta: number;
  codsubcuenta: string;
}

const toSubaccount = (row: Record<string, unknown> | undefined): SubaccountRow | undefined =>
  row ? { idsubcuenta: Number(row.idsubcuenta), codsubcuenta: String(row.codsubcuenta) } : undefined;

export async function subaccountByCode(db: DbExecutor, codejercicio: string, codsubcuenta: string): Promise<SubaccountRow | undefined> {
  return toSubaccount(
    await db.selectFrom('subcuentas').select(['idsubcuenta', 'codsubcuenta']).where('codejercicio', '=', codejercicio).where('codsubcuenta', '=', codsubcuenta).executeTakeFirst(),
  );
}

export async function subaccountById(db: DbExecutor, idsubcuenta: number): Promise<SubaccountRow | undefined> {
  return toSubaccount(await db.selectFrom('subcuentas').select(['idsubcuenta', 'codsubcuenta']).where('idsubcuenta', '=', idsubcuenta).executeTakeFirst());
}

/**
 * Whether a locked VAT settlement of company `idempresa` (or of no company) covers `fecha`, as an
 * SQL expression (1 or 0) for a read that checks it with others (a document's read after its
 * locks). Both may be values or SQL (columns of the caller's query, the company of a year). A
 * settlement never locks another company's books.
 */
export function lockedSettlementRead(dialect: SqlDialect, fecha: string | RawBuilder<unknown>, idempresa: number | null | RawBuilder<unknown>): RawBuilder<number> {
  // The flag as text, not bound: a constant of the statement (statement-shapes.ts keeps only bound values that may differ).
  return sql<number>`CASE WHEN EXISTS (SELECT 1 FROM regularizacionimpuestos WHERE bloquear = ${sql.lit(dialect.boolean(true))} AND fechainicio <= ${fecha} AND fechafin >= ${fecha} AND (idempresa IS NULL OR idempresa = ${idempresa})) THEN 1 ELSE 0 END`;
}

/** The company of year `codejercicio`, as SQL: what an entry's settlement lock is read for. */
export const companyOfYear = (codejercicio: string): RawBuilder<number> => sql<number>`(SELECT idempresa FROM ejercicios WHERE codejercicio = ${codejercicio})`;

/** Whether a locked VAT settlement (`regularizacionimpuestos.bloquear`) of company `idempresa` covers `fecha`. */
export async function insideLockedSettlement(db: DbExecutor, dialect: SqlDialect, fecha: unknown, idempresa: number | null | RawBuilder<unknown>): Promise<boolean> {
  if (typeof fecha !== 'string' || fecha === '') return false;
  const row = await sql<{ locked: number | string }>`SELECT ${lockedSettlementRead(dialect, fecha, idempresa)} AS locked`.execute(db);
  return Number(row.rows[0]?.locked) === 1;
}
