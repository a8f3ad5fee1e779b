import { dec, round, type Dec } from '../../../models/round.ts';
import { partiesOf, type ExportView } from '../export-view.ts';
import { amountText, percentText } from './amount-text.ts';
import { enBreakdown, type EnAllowanceCharge, type EnVatGroup } from './en16931-breakdown.ts';
import { enLine, type EnLine } from './en16931-lines.ts';
import { enParty, type EnParty } from './en16931-parties.ts';
import { paymentMeansOf, type PaymentMeans } from './payment-means.ts';
import { SUPPLIED_CATEGORY, vatCategoryOf, withoutNotSubject } from './vat-category.ts';
import { oneLine } from './xml-element.ts';

export type { EnAllowanceCharge, EnLine, EnParty, EnVatGroup };

/** The document totals (BG-22). */
export interface EnTotals {
  /** BT-106 = sum of BT-131. */
  lineTotal: Dec;
  /** BT-107, BT-108. */
  allowanceTotal: Dec;
  chargeTotal: Dec;
  /** BT-109 = BT-106 - BT-107 + BT-108; BT-110; BT-112 = BT-109 + BT-110. */
  taxExclusive: Dec;
  vat: Dec;
  taxInclusive: Dec;
  /** BT-113: the IRPF withheld (see docs/export-einvoice.md). */
  prepaid: Dec;
  /** BT-114: what the stored total differs from the parts by, normally zero. */
  rounding: Dec;
  /** BT-115 = BT-112 - BT-113 + BT-114: the document's total (positive on a credit note). */
  payable: Dec;
}

/**
 * One invoice in EN 16931's semantic model (the business terms BT-n), independent of the syntax:
 * `ubl-invoice.ts` and `cii-invoice.ts` only bind it. All amounts are signed for the document:
 * a credit note shows the refund's negative amounts as positive ones.
 */
export interface EnInvoice {
  /** Type code 381 (credit note) for a refund, else 380. */
  creditNote: boolean;
  /** BT-1; BT-2 issue date, BT-9 due date, BT-7 tax point date; BT-5 currency. */
  number: string;
  issueDate: string;
  dueDate: string | null;
  taxPointDate: string | null;
  currency: string;
  /** BT-22. */
  notes: string[];
  /** BT-10 (the buyer's own reference: our code on a purchase), BT-13 (the customer's order number). */
  buyerReference: string | null;
  orderReference: string | null;
  /** BG-3: the invoice a credit note corrects. */
  preceding: { number: string; date: string } | null;
  /** BG-24: supporting documents by reference (BT-122 id, BT-123 description, BT-124 location): the fiscal QR's address. */
  supportingDocuments: Array<{ id: string; description: string; uri: string }>;
  seller: EnParty;
  buyer: EnParty;
  /** BG-13: actual delivery date and country, given when an intra-community supply needs them (BR-IC-11/12). */
  delivery: { date: string; country: string } | null;
  payment: PaymentMeans;
  /** BT-83: the remittance information (the invoice number). */
  paymentId: string;
  /** BT-20: the receipts' due dates and amounts. */
  paymentTerms: string | null;
  lines: EnLine[];
  allowanceCharges: EnAllowanceCharge[];
  vatGroups: EnVatGroup[];
  totals: EnTotals;
}

const sum = (values: Dec[]) => values.reduce((acc, value) => acc.plus(value), dec(0));

/** A refund is a credit note: its series is rectifying (`R`) or it names the invoice it rectifies. */
export function isCreditNote(view: Pick<ExportView, 'seriesType' | 'rectifies'>): boolean {
  return view.seriesType === 'R' || view.rectifies !== null;
}

/** The view (an invoice or a refund) as EN 16931 business terms. */
export function enInvoice(view: ExportView): EnInvoice {
  const creditNote = isCreditNote(view);
  const sign: 1 | -1 = creditNote ? -1 : 1;
  const currency = view.currency.code;

  let categories = view.lines.map((line) => (line.supplied ? SUPPLIED_CATEGORY : vatCategoryOf(line)));
  const notSubjectOnly = categories.length > 0 && categories.every((category) => category.code === 'O') && view.totals.surcharge === 0;
  if (!notSubjectOnly) categories = categories.map(withoutNotSubject);
  const lines = view.lines.map((line, index) => enLine(line, sign, categories[index]!));
  const { groups, allowanceCharges } = enBreakdown(view, lines, sign);

  const lineTotal = sum(lines.map((line) => line.netAmount));
  const allowanceTotal = sum(allowanceCharges.filter((item) => !item.charge).map((item) => item.amount));
  const chargeTotal = sum(allowanceCharges.filter((item) => item.charge).map((item) => item.amount));
  const taxExclusive = lineTotal.minus(allowanceTotal).plus(chargeTotal);
  const vat = sum(groups.map((group) => group.vat));
  const taxInclusive = taxExclusive.plus(vat);
  const prepaid = round(dec(view.totals.irpf).times(sign), 2);
  const payable = round(dec(view.totals.total).times(sign), 2);

  const { seller, buyer } = partiesOf(view);
  const withVatIds = !notSubjectOnly; // BR-O-02: a not-subject invoice names no VAT identifiers
  const enSeller = enParty(seller, withVatIds);
  const enBuyer = enParty(buyer, withVatIds);
  const purchase = view.side === 'purchase';
  const number = (purchase && oneLine(view.externalNumber)) || view.code;

  const notes = [oneLine(view.observations)];
  if (!prepaid.isZero()) {
    notes.push(`Retención IRPF ${percentText(view.totals.irpfRate)}: ${amountText(prepaid)} ${currency}, a ingresar por el pagador; figura como importe ya pagado (BT-113).`);
  }
  const receipts = view.receipts.map((receipt) => `${receipt.dueDate} ${amountText(dec(receipt.amount).times(sign))} ${currency}${receipt.paid ? ' (pagado)' : ''}`);

  return {
    creditNote,
    number,
    issueDate: view.date,
    dueDate: view.dueDate,
    taxPointDate: view.taxPointDate,
    currency,
    notes: notes.filter(Boolean),
    buyerReference: purchase ? view.code : null,
    orderReference: purchase ? null : oneLine(view.externalNumber) || null,
    preceding: view.rectifies ? { number: view.rectifies.code, date: view.rectifies.date } : null,
    supportingDocuments: view.fiscalQr ? [{ id: 'QR tributario', description: oneLine(`${view.fiscalQr.caption} ${view.fiscalQr.legend ?? ''}`), uri: view.fiscalQr.url }] : [],
    seller: enSeller,
    buyer: enBuyer,
    delivery: lines.some((line) => line.category.code === 'K') ? { date: view.taxPointDate ?? view.date, country: enBuyer.country } : null,
    payment: paymentMeansOf(view),
    paymentId: number,
    paymentTerms: receipts.length ? `Vencimientos: ${receipts.join('; ')}` : null,
    lines,
    allowanceCharges,
    vatGroups: groups,
    totals: {
      lineTotal, allowanceTotal, chargeTotal, taxExclusive, vat, taxInclusive, prepaid,
      rounding: payable.minus(taxInclusive.minus(prepaid)),
      payable,
    },
  };
}
