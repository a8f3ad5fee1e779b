import { Decimal } from 'decimal.js';

/** Decimal arithmetic for money: enough precision that sums of cents never drift. */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

/** Zero, shared: Decimals are immutable (every operation answers a new one). */
const ZERO = new Dec(0);

/**
 * Any amount as a Decimal; a JS number is read through its shortest decimal spelling (what the
 * constructor does with a number, after its fast path for small integers), and zero is never
 * negative. A Decimal of this precision is answered as it is (no copy).
 */
export function dec(value: Decimal.Value | null | undefined): Decimal {
  if (value === null || value === undefined || value === '' || value === 0) return ZERO;
  if (typeof value === 'number') return new Dec(value);
  if (typeof value === 'object' && value.constructor === Dec) return value;
  return new Dec(value);
}

/**
 * The reference's `round` (facturascripts-model.md 3.14): PHP's round(), which first pre-rounds
 * to 15 significant digits and then rounds half away from zero. Decimal's ROUND_HALF_UP rounds
 * ties away from zero, so 1.005 -> 1.01, 0.285 -> 0.29, -0.625 -> -0.63.
 */
export function round(value: Decimal.Value, decimals: number): Decimal {
  const exact = dec(value);
  if (exact.isZero()) return ZERO;
  return exact.toSignificantDigits(15, Decimal.ROUND_HALF_UP).toDecimalPlaces(decimals, Decimal.ROUND_HALF_UP);
}

/** `round` as a JS number (what is stored), never -0. */
export function roundNumber(value: Decimal.Value, decimals: number): number {
  return round(value, decimals).toNumber() || 0;
}
