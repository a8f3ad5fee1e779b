import type { ExportView } from '../export-view.ts';

/** Payment instructions (BG-16) in EN 16931 terms. */
export interface PaymentMeans {
  /** BT-81, UNCL 4461. */
  code: string;
  /** BT-82. */
  text: string | null;
  /** BT-84 and BT-86: the seller's account to pay into (credit transfer). */
  payeeIban: string | null;
  payeeBic: string | null;
  /** BT-89 and BT-91: the direct debit's mandate and debited account. */
  mandate: string | null;
  debitedIban: string | null;
}

const compact = (value: string | null) => (value ? value.replace(/\s+/g, '').toUpperCase() : null) || null;

/**
 * BT-81 from the document's payment method: a direct debit is 59 (SEPA direct debit), a method
 * with the company's IBAN is 58 (SEPA credit transfer), the default card and cash methods are 48
 * and 10, anything else 1 ("instrument not defined"): 30/58 without an account would break BR-61.
 */
export function paymentMeansOf(view: Pick<ExportView, 'paymentMethod'>): PaymentMeans {
  const method = view.paymentMethod;
  const none: PaymentMeans = { code: '1', text: null, payeeIban: null, payeeBic: null, mandate: null, debitedIban: null };
  if (!method) return none;
  const text = method.description.trim() || null;
  if (method.directDebit) return { ...none, code: '59', text, mandate: method.mandate?.trim() || null, debitedIban: compact(method.debitIban) };
  if (compact(method.iban)) return { ...none, code: '58', text, payeeIban: compact(method.iban), payeeBic: compact(method.swift) };
  const code = method.code.toUpperCase();
  return { ...none, code: code === 'TARJETA' ? '48' : code === 'CONT' ? '10' : '1', text };
}
