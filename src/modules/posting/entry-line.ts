import { roundNumber } from '../../models/round.ts';
import type { NewEntryLine } from '../accounting/index.ts';

/** A sub-account a line posts to. */
export interface Account {
  idsubcuenta: number;
  codsubcuenta: string;
}

export type EntrySide = 'D' | 'H';

/**
 * One entry line of `amount` on its natural side (D debit, H credit), rounded to `decimals`; a
 * negative amount goes, as its absolute value, to the other side (credit notes, refunds mirror).
 */
export function entryLine(
  account: Account, amount: number, natural: EntrySide, decimals: number, text: { concepto: string; documento: string | null }, extra: Partial<NewEntryLine> = {},
): NewEntryLine {
  const side = amount < 0 ? (natural === 'D' ? 'H' : 'D') : natural;
  const value = roundNumber(Math.abs(amount), decimals);
  return { ...text, idsubcuenta: account.idsubcuenta, codsubcuenta: account.codsubcuenta, debe: side === 'D' ? value : 0, haber: side === 'H' ? value : 0, ...extra };
}
