import type { DbExecutor } from '../../db/database.ts';

/** What other modules need to know of a fiscal year: its state and its sub-account code length. */
export interface ExerciseFacts {
  codejercicio: string;
  /** `ABIERTO` or `CERRADO`. */
  estado: string;
  idempresa: number | null;
  /** Length of every sub-account code of the year (facturascripts-model.md 2.2; 10 by default). */
  longsubcuenta: number;
}

const COLUMNS = ['codejercicio', 'estado', 'idempresa', 'longsubcuenta'] as const;

function facts(row: Record<string, unknown> | undefined): ExerciseFacts | undefined {
  if (!row) return undefined;
  return {
    codejercicio: String(row.codejercicio),
    estado: String(row.estado),
    idempresa: row.idempresa === null || row.idempresa === undefined ? null : Number(row.idempresa),
    longsubcuenta: Number(row.longsubcuenta ?? 10),
  };
}

/** The fiscal year `codejercicio`, read in the caller's transaction. */
export async function exerciseOf(db: DbExecutor, codejercicio: string): Promise<ExerciseFacts | undefined> {
  return facts(await db.selectFrom('ejercicios').select([...COLUMNS]).where('codejercicio', '=', codejercicio).executeTakeFirst());
}

/** The fiscal year of company `idempresa` (any company when null) whose dates cover `fecha` (`YYYY-MM-DD`). */
export async function exerciseCovering(db: DbExecutor, idempresa: number | null, fecha: string): Promise<ExerciseFacts | undefined> {
  let query = db.selectFrom('ejercicios').select([...COLUMNS]).where('fechainicio', '<=', fecha).where('fechafin', '>=', fecha);
  if (idempresa !== null) query = query.where('idempresa', '=', idempresa);
  return facts(await query.orderBy('codejercicio', 'desc').executeTakeFirst());
}
