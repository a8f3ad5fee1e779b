import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError, validationError } from '../../errors.ts';
import { ejercicioModel, overlappingExercise } from '../fiscal/index.ts';

/**
 * The fiscal year (`codejercicio`) of a company for a date (facturascripts-model.md 3.7): the open
 * exercise covering it, or a calendar-year exercise created on the fly (through the store, so that
 * modules that follow new years, such as the chart of accounts, take part); a date inside a closed
 * exercise is refused.
 */
export async function exerciseFor(ctx: AppContext, db: DbExecutor, idempresa: number, fecha: string): Promise<string> {
  const { dialect } = ctx.database;
  const covering = () => db
    .selectFrom('ejercicios')
    .select(['codejercicio', 'estado'])
    .where('idempresa', '=', idempresa)
    .where('fechainicio', '<=', fecha)
    .where('fechafin', '>=', fecha)
    .orderBy('codejercicio', 'desc')
    .executeTakeFirst();
  // The common case, an exercise that exists, needs no lock; creating one does: the company's row
  // lock serialises the creation of its missing exercises, and under it we look again.
  let found = await covering();
  if (!found) {
    await dialect.locking(db.selectFrom('empresas').select('idempresa').where('idempresa', '=', idempresa)).execute();
    found = await covering();
  }
  if (found) {
    if (found.estado !== 'ABIERTO') throw new AppError('exercise-closed', { fecha, codejercicio: found.codejercicio });
    return String(found.codejercicio);
  }
  const year = fecha.slice(0, 4);
  // The calendar year would overlap a fiscal year of the company that does not cover the date: the
  // reference's creation fails, and so does the document.
  if (await overlappingExercise(db, idempresa, `${year}-01-01`, `${year}-12-31`)) throw validationError({ fecha: 'overlapping-exercise' });
  const taken = new Set((await db.selectFrom('ejercicios').select('codejercicio').execute()).map((row) => String(row.codejercicio)));
  const candidates = [year, `00${year.slice(2)}`, `0${idempresa}${year.slice(2)}`.padStart(4, '0').slice(-4)];
  let code = candidates.find((candidate) => !taken.has(candidate));
  for (let n = 1; !code && n <= 9999; n++) if (!taken.has(String(n).padStart(4, '0'))) code = String(n).padStart(4, '0');
  if (!code) throw new AppError('exercise-closed', { fecha });
  const companies = await db.selectFrom('empresas').select(['idempresa', 'nombrecorto']).execute();
  const company = companies.find((row) => Number(row.idempresa) === idempresa);
  const latest = await db.selectFrom('ejercicios').select('longsubcuenta').where('idempresa', '=', idempresa).orderBy('fechainicio', 'desc').executeTakeFirst();
  await ctx.store.create(ejercicioModel, {
    codejercicio: code,
    nombre: companies.length > 1 && company?.nombrecorto ? `${company.nombrecorto} ${year}` : year,
    fechainicio: `${year}-01-01`,
    fechafin: `${year}-12-31`,
    estado: 'ABIERTO',
    idempresa,
    longsubcuenta: Number(latest?.longsubcuenta ?? 10),
  }, db);
  return code;
}
