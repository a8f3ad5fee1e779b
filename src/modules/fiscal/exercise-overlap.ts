import type { DbExecutor } from '../../db/database.ts';

/**
 * The fiscal year of company `idempresa` (of no company when null) whose dates overlap
 * `fechainicio`..`fechafin`, other than `except`; undefined when there is none. The reference
 * refuses an exercise overlapping another of its company (Ejercicio::test).
 */
export async function overlappingExercise(db: DbExecutor, idempresa: number | null, fechainicio: string, fechafin: string, except?: string): Promise<string | undefined> {
  let query = db.selectFrom('ejercicios').select('codejercicio').where('fechainicio', '<=', fechafin).where('fechafin', '>=', fechainicio);
  query = idempresa === null ? query.where('idempresa', 'is', null) : query.where('idempresa', '=', idempresa);
  if (except !== undefined) query = query.where('codejercicio', '<>', except);
  const row = await query.limit(1).executeTakeFirst();
  return row ? String(row.codejercicio) : undefined;
}
