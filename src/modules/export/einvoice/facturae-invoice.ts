import { xmlDocument } from './xml-element.ts';
import { dec, round, type Dec } from '../../../models/round.ts';
import { partiesOf, type ExportView } from '../export-view.ts';
import { amountText, numberText, percentText } from './amount-text.ts';
import { isCreditNote } from './en16931-invoice.ts';
import { facturaeItem } from './facturae-items.ts';
import { facturaeParty, facturaeTaxId } from './facturae-party.ts';
import { amountElement, globalFactor, outputRate, outputTax, withheldGroups, withheldTax } from './facturae-taxes.ts';
import { vatCategoryOf } from './vat-category.ts';
import { addText, oneLine, type XmlNode } from './xml-element.ts';

/** Facturae 3.2.2's namespace (the root element only: its children are unqualified). */
export const FACTURAE_NAMESPACE = 'http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml';

/** The document totals in Facturae's terms, each one the schema's formula over the previous. */
interface Totals {
  /** Sum of the lines' GrossAmount (exact). */
  gross: Dec;
  /** TotalGrossAmountBeforeTaxes: the stored taxable base (`neto`). */
  beforeTaxes: Dec;
  /** VAT plus equivalence surcharge. */
  taxOutputs: Dec;
  withheld: Dec;
  /** InvoiceTotal = beforeTaxes + taxOutputs - withheld (= TotalOutstandingAmount: no subsidies or advances). */
  invoiceTotal: Dec;
  reimbursable: Dec;
  /** TotalExecutableAmount = invoiceTotal + reimbursable expenses: the document's total. */
  executable: Dec;
}

function totalsOf(view: ExportView): Totals {
  const gross = view.lines.filter((line) => !line.supplied).reduce((sum, line) => sum.plus(dec(line.netAmount)), dec(0));
  const beforeTaxes = dec(view.totals.net);
  const taxOutputs = dec(view.totals.vat).plus(dec(view.totals.surcharge));
  const withheld = dec(view.totals.irpf);
  const invoiceTotal = beforeTaxes.plus(taxOutputs).minus(withheld);
  const reimbursable = dec(view.totals.supplied);
  return { gross, beforeTaxes, taxOutputs, withheld, invoiceTotal, reimbursable, executable: invoiceTotal.plus(reimbursable) };
}

/** First and last day of a date's month: the tax period of a corrected invoice. */
function monthOf(date: string): { start: string; end: string } {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { start: `${date.slice(0, 7)}-01`, end: `${date.slice(0, 7)}-${String(last).padStart(2, '0')}` };
}

/**
 * The invoice as an unsigned Facturae 3.2.2 file (one invoice, issued by the seller). Amounts
 * keep the document's sign: a refund is a corrective invoice (`OR`) with negative amounts, as
 * Facturae expects. Taxes, surcharge (EquivalenceSurcharge), IRPF (TaxesWithheld) and supplied
 * amounts (ReimbursableExpenses) are Facturae's own elements. Pure.
 */
export function renderFacturae(view: ExportView): string {
  const credit = isCreditNote(view);
  const { seller, buyer } = partiesOf(view);
  const totals = totalsOf(view);
  const own = view.side === 'purchase' ? oneLine(view.externalNumber) : '';
  const number = own && own.length <= 20 ? own : view.code.length <= 20 ? view.code : oneLine(view.number, 20);

  const doc = xmlDocument();
  const root = doc.ele(FACTURAE_NAMESPACE, 'fe:Facturae');
  const header = root.ele('FileHeader');
  header.ele('SchemaVersion').txt('3.2.2');
  header.ele('Modality').txt('I');
  header.ele('InvoiceIssuerType').txt('EM');
  const batch = header.ele('Batch');
  batch.ele('BatchIdentifier').txt(`${facturaeTaxId(seller)}${number}`.slice(0, 70));
  batch.ele('InvoicesCount').txt('1');
  amountElement(batch, 'TotalInvoicesAmount', totals.invoiceTotal);
  amountElement(batch, 'TotalOutstandingAmount', totals.invoiceTotal);
  amountElement(batch, 'TotalExecutableAmount', totals.executable);
  batch.ele('InvoiceCurrencyCode').txt(view.currency.code);

  const parties = root.ele('Parties');
  facturaeParty(parties.ele('SellerParty'), seller);
  facturaeParty(parties.ele('BuyerParty'), buyer);

  const invoice = root.ele('Invoices').ele('Invoice');
  invoiceHeader(invoice.ele('InvoiceHeader'), view, number, credit);
  const issue = invoice.ele('InvoiceIssueData');
  issue.ele('IssueDate').txt(view.date);
  addText(issue, 'OperationDate', view.taxPointDate);
  issue.ele('InvoiceCurrencyCode').txt(view.currency.code);
  issue.ele('TaxCurrencyCode').txt('EUR');
  issue.ele('LanguageName').txt(/^[a-z]{2}/i.test(view.lang) ? view.lang.slice(0, 2).toLowerCase() : 'es');
  const order = view.side === 'sales' ? oneLine(view.externalNumber) : '';
  if (order && order.length <= 20) issue.ele('ReceiverTransactionReference').txt(order);

  taxesOutputs(invoice.ele('TaxesOutputs'), view);
  const withheld = withheldGroups(view);
  if (withheld.length) {
    const node = invoice.ele('TaxesWithheld');
    for (const group of withheld) withheldTax(node, group.rate, group.base, group.amount);
  }
  invoiceTotals(invoice.ele('InvoiceTotals'), view, totals);
  const items = invoice.ele('Items');
  const factor = globalFactor(view);
  for (const line of view.lines) if (!line.supplied) facturaeItem(items, line, factor);
  paymentDetails(invoice, view, totals);
  additional(invoice, view);
  return doc.end({ prettyPrint: true });
}

function invoiceHeader(node: XmlNode, view: ExportView, number: string, credit: boolean): void {
  node.ele('InvoiceNumber').txt(number);
  node.ele('InvoiceDocumentType').txt(view.seriesType === 'S' ? 'FA' : 'FC');
  node.ele('InvoiceClass').txt(credit ? 'OR' : 'OO');
  if (!credit) return;
  // A refund corrects the listed items of the invoice it rectifies (method 02, by differences),
  // changing the taxable base (reason 16); descriptions are the schema's fixed texts.
  const corrective = node.ele('Corrective');
  addText(corrective, 'InvoiceNumber', view.rectifies ? oneLine(view.rectifies.code, 20) : null);
  corrective.ele('ReasonCode').txt('16');
  corrective.ele('ReasonDescription').txt('Base imponible');
  // The rectified invoice's month, or the refund's own when only the rectified code is known.
  const period = monthOf(view.rectifies?.date || view.date);
  const taxPeriod = corrective.ele('TaxPeriod');
  taxPeriod.ele('StartDate').txt(period.start);
  taxPeriod.ele('EndDate').txt(period.end);
  corrective.ele('CorrectionMethod').txt('02');
  corrective.ele('CorrectionMethodDescription').txt('Rectificación por diferencias');
  addText(corrective, 'InvoiceIssueDate', view.rectifies?.date);
}

/** One `Tax` per stored group (VAT rate and surcharge rate); a document with no taxed line states a zero VAT. */
function taxesOutputs(node: XmlNode, view: ExportView): void {
  if (!view.taxes.length) {
    outputTax(node, { taxCode: null, rate: 0, base: 0, vat: 0, surchargeRate: 0, surcharge: 0 });
    return;
  }
  for (const tax of view.taxes) {
    const member = view.lines.find((line) => !line.supplied && line.vatRate === tax.vatRate && line.surchargeRate === tax.surchargeRate);
    const rate = outputRate(member ?? { taxCode: tax.taxCode, vatRate: tax.vatRate, vatException: tax.vatException });
    outputTax(node, { taxCode: tax.taxCode, rate, base: tax.base, vat: tax.vat, surchargeRate: tax.surchargeRate, surcharge: tax.surcharge });
  }
}

function invoiceTotals(node: XmlNode, view: ExportView, totals: Totals): void {
  node.ele('TotalGrossAmount').txt(numberText(totals.gross, 8));
  // Global discounts (and, without them, the rounding of the stored base) bridge the lines' exact
  // gross amounts and the stored base, so that TotalGrossAmountBeforeTaxes is the base itself.
  const gap = totals.gross.minus(totals.beforeTaxes);
  const rates = [view.totals.globalDiscount, view.totals.globalDiscount2].filter((rate) => rate !== 0);
  const discounted = rates.length > 0 || gap.isPositive();
  if (!gap.isZero() && discounted) {
    const discount = node.ele('GeneralDiscounts').ele('Discount');
    discount.ele('DiscountReason').txt(rates.length ? `Descuento global ${rates.map(percentText).join(' + ')}` : 'Ajuste de redondeo');
    if (rates.length) discount.ele('DiscountRate').txt(numberText(dec(1).minus(globalFactor(view)).times(100), 8));
    discount.ele('DiscountAmount').txt(numberText(gap, 8));
  } else if (!gap.isZero()) {
    const charge = node.ele('GeneralSurcharges').ele('Charge');
    charge.ele('ChargeReason').txt('Ajuste de redondeo');
    charge.ele('ChargeAmount').txt(numberText(gap.negated(), 8));
  }
  if (!gap.isZero()) node.ele(discounted ? 'TotalGeneralDiscounts' : 'TotalGeneralSurcharges').txt(numberText(discounted ? gap : gap.negated(), 8));
  node.ele('TotalGrossAmountBeforeTaxes').txt(amountText(totals.beforeTaxes));
  node.ele('TotalTaxOutputs').txt(amountText(totals.taxOutputs));
  node.ele('TotalTaxesWithheld').txt(amountText(totals.withheld));
  node.ele('InvoiceTotal').txt(amountText(totals.invoiceTotal));
  const supplied = view.lines.filter((line) => line.supplied);
  if (supplied.length && !totals.reimbursable.isZero()) {
    // One entry per supplied line, after global discounts; the last takes the rounding remainder.
    const list = node.ele('ReimbursableExpenses');
    const factor = globalFactor(view);
    let left = totals.reimbursable;
    supplied.forEach((line, index) => {
      const amount = index === supplied.length - 1 ? left : round(dec(line.netAmount).times(factor), 2);
      left = left.minus(amount);
      list.ele('ReimbursableExpenses').ele('ReimbursableExpensesAmount').txt(amountText(amount));
    });
  }
  node.ele('TotalOutstandingAmount').txt(amountText(totals.invoiceTotal));
  node.ele('TotalExecutableAmount').txt(amountText(totals.executable));
  if (!totals.reimbursable.isZero()) node.ele('TotalReimbursableExpenses').txt(amountText(totals.reimbursable));
}

/** Facturae's `PaymentMeansType` for the document's payment method (see docs/export-einvoice.md). */
function facturaeMeans(view: ExportView): { code: string; credited: string | null; bic: string | null; debited: string | null } {
  const method = view.paymentMethod;
  const iban = method?.iban?.replace(/\s+/g, '').toUpperCase() || null;
  const bic = method?.swift?.replace(/\s+/g, '').toUpperCase() || null;
  if (!method) return { code: '13', credited: null, bic: null, debited: null };
  if (method.directDebit) return { code: '02', credited: null, bic: null, debited: method.debitIban?.replace(/\s+/g, '').toUpperCase() || null };
  if (iban) return { code: '04', credited: iban, bic: bic && bic.length === 8 ? `${bic}XXX` : bic && bic.length === 11 ? bic : null, debited: null };
  const code = method.code.toUpperCase();
  return { code: code === 'TARJETA' ? '19' : code === 'CONT' ? '01' : '13', credited: null, bic: null, debited: null };
}

/** One installment per receipt (the whole total on the due date when there are none). */
function paymentDetails(invoice: XmlNode, view: ExportView, totals: Totals): void {
  const means = facturaeMeans(view);
  const receipts = view.receipts.length ? view.receipts.map((receipt) => ({ dueDate: receipt.dueDate, amount: dec(receipt.amount) }))
    : [{ dueDate: view.dueDate ?? view.date, amount: totals.executable }];
  const details = invoice.ele('PaymentDetails');
  for (const receipt of receipts) {
    const installment = details.ele('Installment');
    installment.ele('InstallmentDueDate').txt(receipt.dueDate);
    installment.ele('InstallmentAmount').txt(amountText(receipt.amount));
    installment.ele('PaymentMeans').txt(means.code);
    if (means.credited) {
      const account = installment.ele('AccountToBeCredited');
      account.ele('IBAN').txt(means.credited);
      addText(account, 'BIC', means.bic);
    }
    if (means.debited) installment.ele('AccountToBeDebited').ele('IBAN').txt(means.debited);
  }
}

/** Legal literals (exemption causes), the rectified invoice, the fiscal QR's address, observations and the supplied lines' descriptions. */
function additional(invoice: XmlNode, view: ExportView): void {
  const literals = [...new Set(view.lines.filter((line) => !line.supplied).map((line) => (outputRate(line) === 0 ? vatCategoryOf(line).exemptionText : null))
    .filter((text): text is string => !!text))];
  if (literals.length) {
    const node = invoice.ele('LegalLiterals');
    for (const literal of literals) node.ele('LegalReference').txt(oneLine(literal, 250));
  }
  const supplied = view.lines.filter((line) => line.supplied).map((line) => `${oneLine(line.description) || oneLine(line.reference)}: ${amountText(line.netAmount)}`);
  // The fiscal QR's address first: Facturae has no field of its own for it, and it must never be cut.
  const qr = view.fiscalQr ? `${view.fiscalQr.caption} ${view.fiscalQr.url}` : '';
  const information = [qr, view.observations.trim(), supplied.length ? `Suplidos: ${supplied.join('; ')}` : ''].filter(Boolean).join('\n');
  if (!view.rectifies && !information) return;
  const data = invoice.ele('AdditionalData');
  addText(data, 'RelatedInvoice', view.rectifies ? oneLine(view.rectifies.code, 40) : null);
  addText(data, 'InvoiceAdditionalInformation', information.slice(0, 2500));
}
