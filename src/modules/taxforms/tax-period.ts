import type { AppContext } from '../../app-context.ts';
import { validationError } from '../../errors.ts';
import { textOf } from '../../models/record-rules.ts';
import { companyOf } from '../company/index.ts';
import { ejercicioModel } from '../fiscal/index.ts';

/** A VAT period: its year (the exercise's), its code (`1T`-`4T` quarters, `01`-`12` months) and its days. */
export interface TaxPeriod {
  codejercicio: string;
  periodo: string;
  idempresa: number;
  year: number;
  desde: string;
  hasta: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The months a period code covers, or undefined for a code that is none. */
export function monthsOf(periodo: string): [number, number] | undefined {
  const quarter = /^([1-4])T$/.exec(periodo);
  if (quarter) return [Number(quarter[1]) * 3 - 2, Number(quarter[1]) * 3];
  const month = /^(0[1-9]|1[0-2])$/.exec(periodo);
  return month ? [Number(month[1]), Number(month[1])] : undefined;
}

/** The period before (`4T` of the previous year for `1T`, `12` for `01`), as its year and code. */
export function previousPeriod(year: number, periodo: string): { year: number; periodo: string } {
  const quarter = /^([1-4])T$/.exec(periodo);
  if (quarter) return Number(quarter[1]) === 1 ? { year: year - 1, periodo: '4T' } : { year, periodo: `${Number(quarter[1]) - 1}T` };
  return Number(periodo) === 1 ? { year: year - 1, periodo: '12' } : { year, periodo: pad(Number(periodo) - 1) };
}

/** The days a period of `year` covers (`monthsOf`'s months, whole). */
export function daysOf(year: number, periodo: string): { desde: string; hasta: string } {
  const months = monthsOf(periodo)!;
  return { desde: `${year}-${pad(months[0])}-01`, hasta: `${year}-${pad(months[1])}-${pad(lastDay(year, months[1]))}` };
}

/** Whether a period is the year's last (`4T`, `12`): where refunds may be asked and page 4 / the 390 go. */
export const isLastPeriod = (periodo: string) => periodo === '4T' || periodo === '12';

/**
 * The fiscal year a request names (`codejercicio`, `idempresa` default the installation's company):
 * the exercise must exist and belong to that company; 422 naming the member otherwise. `year` is
 * the calendar year it starts in.
 */
export async function taxYearOf(ctx: AppContext, query: Record<string, unknown>): Promise<{ codejercicio: string; idempresa: number; year: number }> {
  const codejercicio = textOf(query.codejercicio).trim();
  if (!codejercicio) throw validationError({ codejercicio: 'required' });
  const given = textOf(query.idempresa).trim();
  if (given && !/^\d{1,9}$/.test(given)) throw validationError({ idempresa: 'invalid-integer' });
  const idempresa = given ? Number(given) : (await ctx.settings()).idempresa;
  if (given && !(await companyOf(ctx.database.kysely, idempresa))) throw validationError({ idempresa: 'not-found' });
  const exercise = await ctx.store.get(ejercicioModel, codejercicio);
  if (!exercise) throw validationError({ codejercicio: 'not-found' });
  if (exercise.idempresa !== null && exercise.idempresa !== undefined && Number(exercise.idempresa) !== idempresa) throw validationError({ idempresa: 'other-company' });
  return { codejercicio, idempresa, year: Number(textOf(exercise.fechainicio).slice(0, 4)) };
}

/** The period a request names: its year (see taxYearOf) and `periodo`, required, a quarter or a month. */
export async function taxPeriodOf(ctx: AppContext, query: Record<string, unknown>): Promise<TaxPeriod> {
  const periodo = textOf(query.periodo).trim().toUpperCase();
  const months = monthsOf(periodo);
  if (textOf(query.codejercicio).trim() && !periodo) throw validationError({ periodo: 'required' });
  const { codejercicio, idempresa, year } = await taxYearOf(ctx, query);
  if (!periodo) throw validationError({ periodo: 'required' });
  if (!months) throw validationError({ periodo: 'invalid-value' });
  return { codejercicio, periodo, idempresa, year, ...daysOf(year, periodo) };
}
