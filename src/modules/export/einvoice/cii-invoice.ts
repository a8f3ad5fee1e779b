import { xmlDocument } from './xml-element.ts';
import type { Dec } from '../../../models/round.ts';
import type { ExportView } from '../export-view.ts';
import { amountText, numberText } from './amount-text.ts';
import { enInvoice, type EnAllowanceCharge, type EnInvoice, type EnLine, type EnParty } from './en16931-invoice.ts';
import { EN16931_CUSTOMIZATION } from './ubl-invoice.ts';
import type { VatCategory } from './vat-category.ts';
import { addText, type XmlNode } from './xml-element.ts';

/** UN/CEFACT Cross Industry Invoice D16B namespaces. */
export const CII_NAMESPACES = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
} as const;

/** `YYYY-MM-DD` as CII's date format 102 (`YYYYMMDD`). */
const date102 = (value: string) => value.slice(0, 10).replaceAll('-', '');

/**
 * The invoice as a UN/CEFACT CII D16B `CrossIndustryInvoice` following EN 16931's CII binding:
 * type code 380, or 381 for a refund (a credit note with positive amounts, as in UBL). Elements
 * in the D16B schema's order. Pure: the same view gives the same bytes.
 */
export function renderCii(view: ExportView): string {
  const invoice = enInvoice(view);
  const doc = xmlDocument();
  const root = doc.ele(CII_NAMESPACES.rsm, 'rsm:CrossIndustryInvoice', {
    'xmlns:ram': CII_NAMESPACES.ram, 'xmlns:qdt': CII_NAMESPACES.qdt, 'xmlns:udt': CII_NAMESPACES.udt,
  });
  addText(root.ele('rsm:ExchangedDocumentContext').ele('ram:GuidelineSpecifiedDocumentContextParameter'), 'ram:ID', EN16931_CUSTOMIZATION);

  const header = root.ele('rsm:ExchangedDocument');
  addText(header, 'ram:ID', invoice.number);
  addText(header, 'ram:TypeCode', invoice.creditNote ? '381' : '380');
  dateTime(header.ele('ram:IssueDateTime'), invoice.issueDate);
  for (const note of invoice.notes) addText(header.ele('ram:IncludedNote'), 'ram:Content', note);

  const transaction = root.ele('rsm:SupplyChainTradeTransaction');
  for (const item of invoice.lines) line(transaction.ele('ram:IncludedSupplyChainTradeLineItem'), item);

  const agreement = transaction.ele('ram:ApplicableHeaderTradeAgreement');
  addText(agreement, 'ram:BuyerReference', invoice.buyerReference);
  party(agreement.ele('ram:SellerTradeParty'), invoice.seller);
  party(agreement.ele('ram:BuyerTradeParty'), invoice.buyer);
  if (invoice.orderReference) addText(agreement.ele('ram:BuyerOrderReferencedDocument'), 'ram:IssuerAssignedID', invoice.orderReference);
  for (const document of invoice.supportingDocuments) {
    // TypeCode 916: an additional supporting document (UNTDID 1001), located by its URI.
    const reference = agreement.ele('ram:AdditionalReferencedDocument');
    addText(reference, 'ram:IssuerAssignedID', document.id);
    addText(reference, 'ram:URIID', document.uri);
    addText(reference, 'ram:TypeCode', '916');
    addText(reference, 'ram:Name', document.description);
  }

  const delivery = transaction.ele('ram:ApplicableHeaderTradeDelivery');
  if (invoice.delivery) {
    addText(delivery.ele('ram:ShipToTradeParty').ele('ram:PostalTradeAddress'), 'ram:CountryID', invoice.delivery.country);
    dateTime(delivery.ele('ram:ActualDeliverySupplyChainEvent').ele('ram:OccurrenceDateTime'), invoice.delivery.date);
  }
  settlement(transaction.ele('ram:ApplicableHeaderTradeSettlement'), invoice);
  return doc.end({ prettyPrint: true });
}

function dateTime(parent: XmlNode, value: string): void {
  parent.ele('udt:DateTimeString', { format: '102' }).txt(date102(value));
}

function indicator(parent: XmlNode, charge: boolean): void {
  parent.ele('ram:ChargeIndicator').ele('udt:Indicator').txt(String(charge));
}

/** A VAT category on a line or an allowance: no rate for not-subject (BR-O-05..07). */
function tradeTax(node: XmlNode, category: VatCategory): void {
  addText(node, 'ram:TypeCode', 'VAT');
  addText(node, 'ram:CategoryCode', category.code);
  if (category.rate !== null) addText(node, 'ram:RateApplicablePercent', numberText(category.rate, 4));
}

function allowanceCharge(node: XmlNode, item: Pick<EnAllowanceCharge, 'charge' | 'amount' | 'reason' | 'reasonCode'>, category: VatCategory | null): void {
  indicator(node, item.charge);
  addText(node, 'ram:ActualAmount', amountText(item.amount));
  addText(node, 'ram:ReasonCode', item.reasonCode);
  addText(node, 'ram:Reason', item.reason);
  if (category) tradeTax(node.ele('ram:CategoryTradeTax'), category);
}

function line(node: XmlNode, item: EnLine): void {
  addText(node.ele('ram:AssociatedDocumentLineDocument'), 'ram:LineID', item.id);
  const product = node.ele('ram:SpecifiedTradeProduct');
  addText(product, 'ram:SellerAssignedID', item.sellerItemId);
  addText(product, 'ram:Name', item.name);
  addText(product, 'ram:Description', item.description);
  addText(node.ele('ram:SpecifiedLineTradeAgreement').ele('ram:NetPriceProductTradePrice'), 'ram:ChargeAmount', numberText(item.price));
  addText(node.ele('ram:SpecifiedLineTradeDelivery'), 'ram:BilledQuantity', numberText(item.quantity), { unitCode: 'C62' });
  const settlement = node.ele('ram:SpecifiedLineTradeSettlement');
  tradeTax(settlement.ele('ram:ApplicableTradeTax'), item.category);
  if (item.adjustment) allowanceCharge(settlement.ele('ram:SpecifiedTradeAllowanceCharge'), item.adjustment, null);
  addText(settlement.ele('ram:SpecifiedTradeSettlementLineMonetarySummation'), 'ram:LineTotalAmount', amountText(item.netAmount));
}

function party(node: XmlNode, data: EnParty): void {
  addText(node, 'ram:Name', data.name);
  if (data.legalId || data.tradeName) {
    const legal = node.ele('ram:SpecifiedLegalOrganization');
    addText(legal, 'ram:ID', data.legalId);
    addText(legal, 'ram:TradingBusinessName', data.tradeName);
  }
  if (data.phone || data.email) {
    const contact = node.ele('ram:DefinedTradeContact');
    if (data.phone) addText(contact.ele('ram:TelephoneUniversalCommunication'), 'ram:CompleteNumber', data.phone);
    if (data.email) addText(contact.ele('ram:EmailURIUniversalCommunication'), 'ram:URIID', data.email);
  }
  const address = node.ele('ram:PostalTradeAddress');
  addText(address, 'ram:PostcodeCode', data.postcode);
  addText(address, 'ram:LineOne', data.street);
  addText(address, 'ram:CityName', data.city);
  addText(address, 'ram:CountryID', data.country);
  addText(address, 'ram:CountrySubDivisionName', data.province);
  if (data.vatId) addText(node.ele('ram:SpecifiedTaxRegistration'), 'ram:ID', data.vatId, { schemeID: 'VA' });
}

function settlement(node: XmlNode, invoice: EnInvoice): void {
  const { payment, totals } = invoice;
  const amount = (parent: XmlNode, name: string, value: Dec) => addText(parent, name, amountText(value));
  addText(node, 'ram:PaymentReference', invoice.paymentId);
  addText(node, 'ram:InvoiceCurrencyCode', invoice.currency);

  const means = node.ele('ram:SpecifiedTradeSettlementPaymentMeans');
  addText(means, 'ram:TypeCode', payment.code);
  addText(means, 'ram:Information', payment.text);
  if (payment.debitedIban) addText(means.ele('ram:PayerPartyDebtorFinancialAccount'), 'ram:IBANID', payment.debitedIban);
  if (payment.payeeIban) addText(means.ele('ram:PayeePartyCreditorFinancialAccount'), 'ram:IBANID', payment.payeeIban);
  if (payment.payeeIban && payment.payeeBic) addText(means.ele('ram:PayeeSpecifiedCreditorFinancialInstitution'), 'ram:BICID', payment.payeeBic);

  invoice.vatGroups.forEach((group, index) => {
    const tax = node.ele('ram:ApplicableTradeTax');
    amount(tax, 'ram:CalculatedAmount', group.vat);
    addText(tax, 'ram:TypeCode', 'VAT');
    addText(tax, 'ram:ExemptionReason', group.category.exemptionText);
    amount(tax, 'ram:BasisAmount', group.base);
    addText(tax, 'ram:CategoryCode', group.category.code);
    addText(tax, 'ram:ExemptionReasonCode', group.category.exemptionCode);
    // BT-7 lives in the breakdown in CII; stated once, on the first group.
    if (index === 0 && invoice.taxPointDate) tax.ele('ram:TaxPointDate').ele('udt:DateString', { format: '102' }).txt(date102(invoice.taxPointDate));
    if (group.category.rate !== null) addText(tax, 'ram:RateApplicablePercent', numberText(group.category.rate, 4));
  });
  for (const item of invoice.allowanceCharges) allowanceCharge(node.ele('ram:SpecifiedTradeAllowanceCharge'), item, item.category);

  if (invoice.paymentTerms || invoice.dueDate || payment.mandate) {
    const terms = node.ele('ram:SpecifiedTradePaymentTerms');
    addText(terms, 'ram:Description', invoice.paymentTerms);
    if (invoice.dueDate) dateTime(terms.ele('ram:DueDateDateTime'), invoice.dueDate);
    addText(terms, 'ram:DirectDebitMandateID', payment.mandate);
  }

  const summation = node.ele('ram:SpecifiedTradeSettlementHeaderMonetarySummation');
  amount(summation, 'ram:LineTotalAmount', totals.lineTotal);
  if (invoice.allowanceCharges.some((item) => item.charge)) amount(summation, 'ram:ChargeTotalAmount', totals.chargeTotal);
  if (invoice.allowanceCharges.some((item) => !item.charge)) amount(summation, 'ram:AllowanceTotalAmount', totals.allowanceTotal);
  amount(summation, 'ram:TaxBasisTotalAmount', totals.taxExclusive);
  addText(summation, 'ram:TaxTotalAmount', amountText(totals.vat), { currencyID: invoice.currency });
  if (!totals.rounding.isZero()) amount(summation, 'ram:RoundingAmount', totals.rounding);
  amount(summation, 'ram:GrandTotalAmount', totals.taxInclusive);
  if (!totals.prepaid.isZero()) amount(summation, 'ram:TotalPrepaidAmount', totals.prepaid);
  amount(summation, 'ram:DuePayableAmount', totals.payable);

  if (invoice.preceding) {
    const reference = node.ele('ram:InvoiceReferencedDocument');
    addText(reference, 'ram:IssuerAssignedID', invoice.preceding.number);
    // The rectified invoice's date is unknown when only its code was stored (`codigorect`).
    if (invoice.preceding.date) reference.ele('ram:FormattedIssueDateTime').ele('qdt:DateTimeString', { format: '102' }).txt(date102(invoice.preceding.date));
  }
}
