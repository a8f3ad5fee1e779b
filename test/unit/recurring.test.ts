import assert from 'node:assert/strict';
import { it } from 'node:test';
import { firstPeriodFrom, periodEnd, periodStart, type Schedule } from '../../src/modules/recurring/schedule.ts';

const month = (fechainicio: string, intervalo = 1): Schedule => ({ periodicidad: 'month', intervalo, fechainicio });

it('places periods on their anchor day, the month\'s last where it has none', () => {
  const cases: Array<[Schedule, number, string]> = [
    [month('2026-01-31'), 0, '2026-01-31'],
    [month('2026-01-31'), 1, '2026-02-28'],
    [month('2026-01-31'), 2, '2026-03-31'],
    [month('2026-01-31'), 3, '2026-04-30'],
    [month('2028-01-31'), 1, '2028-02-29'],
    [month('2026-01-30'), 1, '2026-02-28'],
    [month('2026-01-30'), 2, '2026-03-30'],
    [month('2026-11-15', 3), 1, '2027-02-15'],
    [month('2026-12-31', 2), 1, '2027-02-28'],
    [month('2026-10-31', 1), 14, '2027-12-31'],
    [{ periodicidad: 'year', intervalo: 1, fechainicio: '2024-02-29' }, 1, '2025-02-28'],
    [{ periodicidad: 'year', intervalo: 1, fechainicio: '2024-02-29' }, 4, '2028-02-29'],
    [{ periodicidad: 'year', intervalo: 2, fechainicio: '2024-02-29' }, 1, '2026-02-28'],
    [{ periodicidad: 'week', intervalo: 2, fechainicio: '2026-12-24' }, 1, '2027-01-07'],
    [{ periodicidad: 'day', intervalo: 10, fechainicio: '2026-02-25' }, 1, '2026-03-07'],
    [{ periodicidad: 'day', intervalo: 1, fechainicio: '2026-03-28' }, 2, '2026-03-30'],
  ];
  for (const [schedule, n, expected] of cases) assert.equal(periodStart(schedule, n), expected, `${JSON.stringify(schedule)} #${n}`);
});

it('ends each period the day before the next one starts', () => {
  assert.equal(periodEnd(month('2026-01-31'), 0), '2026-02-27');
  assert.equal(periodEnd(month('2026-01-31'), 1), '2026-03-30');
  assert.equal(periodEnd({ periodicidad: 'year', intervalo: 1, fechainicio: '2026-01-01' }, 0), '2026-12-31');
  assert.equal(periodEnd({ periodicidad: 'week', intervalo: 1, fechainicio: '2026-11-02' }, 0), '2026-11-08');
});

it('finds the first period starting on or after a date, for every kind of schedule', () => {
  const schedules: Schedule[] = [
    month('2026-01-31'), month('2024-02-29', 12), month('2020-05-15', 3),
    { periodicidad: 'year', intervalo: 1, fechainicio: '2000-02-29' },
    { periodicidad: 'week', intervalo: 3, fechainicio: '2025-01-06' },
    { periodicidad: 'day', intervalo: 7, fechainicio: '2026-01-01' },
  ];
  for (const schedule of schedules) {
    for (const date of ['1999-01-01', '2026-02-28', '2026-03-01', '2026-11-27', '2030-12-31']) {
      const n = firstPeriodFrom(schedule, date);
      assert.ok(periodStart(schedule, n) >= date, `${JSON.stringify(schedule)} from ${date}: #${n}`);
      assert.ok(n === 0 || periodStart(schedule, n - 1) < date, `${JSON.stringify(schedule)} from ${date}: #${n} is the first`);
    }
  }
});
