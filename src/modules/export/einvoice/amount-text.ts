import { dec, round, type Dec } from '../../../models/round.ts';

/**
 * Numbers as e-invoices write them: plain decimal notation (never `1e-7`), a dot as separator.
 * Amounts are rounded half away from zero from their exact decimal value, so a binary float such
 * as 1.005 gives `1.01`, not `1.00`.
 */

/** An amount with exactly two decimals (`12.30`), as EN 16931 (BR-DEC-*) and Facturae want. */
export function amountText(value: Dec | number): string {
  return round(value, 2).toFixed(2);
}

/** A quantity, price or rate: its exact value, up to `maxDecimals` decimals, no trailing zeros. */
export function numberText(value: Dec | number, maxDecimals = 6): string {
  const exact = round(value, maxDecimals);
  return exact.isZero() ? '0' : exact.toFixed();
}

/** A rate with exactly two decimals (`21.00`): Facturae's `DoubleTwoDecimalType`. */
export function rateText(value: Dec | number): string {
  return dec(value).toFixed(2);
}

/** A rate in a Spanish free text (reasons, notes): `5,2 %`. */
export function percentText(value: number): string {
  return `${numberText(value, 4).replace('.', ',')} %`;
}
