import assert from 'node:assert/strict';
import { it } from 'node:test';
import { applyPaymentDays } from '../../src/modules/payments/index.ts';

it('moves due dates to the customer payment days (reference ReciboClienteTest)', () => {
  const cases: Array<[string, string | null, string]> = [
    ['2026-03-10', '1,15', '2026-03-15'],
    ['2026-03-16', '1,15', '2026-04-01'],
    ['2026-03-10', '1,7', '2026-04-01'],
    ['2026-02-20', '30', '2026-02-28'], // a day past the month's end means its last day
    ['2026-03-10', null, '2026-03-10'],
    ['2026-03-10', 'x, 40', '2026-03-10'],
  ];
  for (const [date, days, expected] of cases) assert.equal(applyPaymentDays(date, days), expected, `${date} ${days}`);
});
