import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Decimal } from 'decimal.js';
import { dec, Dec, round, roundNumber } from '../../src/models/round.ts';

it('reads every amount as the Decimal of its shortest decimal spelling, zero never negative', () => {
  const cases: Array<[input: Parameters<typeof dec>[0], expected: string]> = [
    [null, '0'], [undefined, '0'], ['', '0'], [0, '0'], [-0, '0'], [7, '7'], [-7, '-7'], [12_345_678, '12345678'],
    [0.1, '0.1'], [0.1 + 0.2, '0.30000000000000004'], [-1.005, '-1.005'], [1e21, '1e+21'], [1.5e-7, '1.5e-7'],
    ['19.99', '19.99'], ['-0.5', '-0.5'], [12n, '12'],
  ];
  for (const [input, expected] of cases) {
    const value = dec(input);
    assert.equal(value.toString(), expected, String(input));
    assert.equal(value.isNegative() && value.isZero(), false, `${String(input)}: no negative zero`);
    assert.equal(value.constructor, Dec, 'of the money precision');
  }
});

it('answers a Decimal of its own precision as it is, and copies one of another into its own', () => {
  const own = new Dec('2.5');
  assert.equal(dec(own), own);
  const other = new Decimal('2.5');
  const copied = dec(other);
  assert.notEqual(copied, other);
  assert.equal(copied.constructor, Dec);
  // 40 significant digits, not the default 20.
  assert.equal(dec(1).div(3).toString().length, '0.'.length + 40);
});

it('rounds as PHP does: 15 significant digits first, then half away from zero', () => {
  const cases: Array<[value: Parameters<typeof round>[0], decimals: number, expected: number]> = [
    [1.005, 2, 1.01], [0.285, 2, 0.29], [-0.625, 2, -0.63], [2.675, 2, 2.68], [0, 2, 0], [-0.001, 2, 0], [new Dec('1.23456'), 3, 1.235],
  ];
  for (const [value, decimals, expected] of cases) assert.equal(roundNumber(value, decimals), expected, `${String(value)} to ${decimals}`);
  assert.ok(Object.is(roundNumber(-0.001, 2), 0), 'never -0');
});
