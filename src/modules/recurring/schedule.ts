import { addDays } from '../../clock.ts';

/**
 * When a recurring invoice's periods fall (pure date arithmetic on `YYYY-MM-DD`, the
 * installation's calendar days). Period `n` (from 0) starts on `periodStart(n)` and ends the day
 * before period `n + 1` starts.
 */
export type Periodicity = 'day' | 'week' | 'month' | 'year';

export const PERIODICITIES: readonly Periodicity[] = ['day', 'week', 'month', 'year'];

export interface Schedule {
  periodicidad: Periodicity;
  intervalo: number;
  /** The first period's date; its day of the month is the anchor of monthly and yearly schedules. */
  fechainicio: string;
}

const DAY = 86_400_000;
const utc = (date: string) => Date.parse(`${date}T00:00:00Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/**
 * The date period `n` starts. Months and years keep the first date's day where the month has it
 * and take the month's last day where it does not: a schedule from 31 January bills on 28 (or 29)
 * February and on 31 March again; one from 29 February bills on 28 February of common years.
 */
export function periodStart(schedule: Schedule, n: number): string {
  const { periodicidad, intervalo, fechainicio } = schedule;
  if (periodicidad === 'day') return addDays(fechainicio, n * intervalo);
  if (periodicidad === 'week') return addDays(fechainicio, 7 * n * intervalo);
  const [year, month, day] = fechainicio.split('-').map(Number) as [number, number, number];
  const months = (month - 1) + n * intervalo * (periodicidad === 'year' ? 12 : 1);
  const targetYear = year + Math.floor(months / 12);
  const targetMonth = months % 12;
  return iso(Date.UTC(targetYear, targetMonth, Math.min(day, daysIn(targetYear, targetMonth))));
}

/** The last day period `n` covers. */
export const periodEnd = (schedule: Schedule, n: number): string => addDays(periodStart(schedule, n + 1), -1);

/** The first period that starts on or after `date` (a resumed template's first period). */
export function firstPeriodFrom(schedule: Schedule, date: string): number {
  if (date <= schedule.fechainicio) return 0;
  // An estimate from the average length, then corrected either way: exact for every calendar.
  const average = { day: 1, week: 7, month: 30.436875, year: 365.2425 }[schedule.periodicidad] * schedule.intervalo;
  let n = Math.max(0, Math.floor((utc(date) - utc(schedule.fechainicio)) / DAY / average) - 1);
  while (n > 0 && periodStart(schedule, n - 1) >= date) n--;
  while (periodStart(schedule, n) < date) n++;
  return n;
}
