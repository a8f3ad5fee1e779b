import { xmlDocument } from './xml-element.ts';
import type { Dec } from '../../../models/round.ts';
import type { ExportView } from '../export-view.ts';
import { amountText, numberText } from './amount-text.ts';
import { enInvoice, type EnAllowanceCharge, type EnInvoice, type EnLine, type EnParty } from './en16931-invoice.ts';
import type { VatCategory } from './vat-category.ts';
import { addText, type XmlNode } from './xml-element.ts';

/** UBL 2.1 namespaces (OASIS). */
export const UBL_NAMESPACES = {
  invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  creditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
} as const;

/** BT-24: the core EN 16931 specification, no CIUS. */
export const EN16931_CUSTOMIZATION = 'urn:cen.eu:en16931:2017';

/**
 * The invoice as a UBL 2.1 `Invoice`, or a `CreditNote` for a refund, following EN 16931's UBL
 * binding; elements in the UBL 2.1 schema's order (which differs between the two roots). Pure:
 * the same view gives the same bytes.
 */
export function renderUbl(view: ExportView): string {
  const invoice = enInvoice(view);
  const credit = invoice.creditNote;
  const doc = xmlDocument();
  const root = doc.ele(credit ? UBL_NAMESPACES.creditNote : UBL_NAMESPACES.invoice, credit ? 'CreditNote' : 'Invoice', {
    'xmlns:cac': UBL_NAMESPACES.cac, 'xmlns:cbc': UBL_NAMESPACES.cbc,
  });
  const money = (parent: XmlNode, name: string, value: Dec) => parent.ele(name, { currencyID: invoice.currency }).txt(amountText(value));

  addText(root, 'cbc:CustomizationID', EN16931_CUSTOMIZATION);
  addText(root, 'cbc:ID', invoice.number);
  addText(root, 'cbc:IssueDate', invoice.issueDate);
  if (credit) {
    addText(root, 'cbc:TaxPointDate', invoice.taxPointDate);
    addText(root, 'cbc:CreditNoteTypeCode', '381');
    for (const note of invoice.notes) addText(root, 'cbc:Note', note);
  } else {
    addText(root, 'cbc:DueDate', invoice.dueDate);
    addText(root, 'cbc:InvoiceTypeCode', '380');
    for (const note of invoice.notes) addText(root, 'cbc:Note', note);
    addText(root, 'cbc:TaxPointDate', invoice.taxPointDate);
  }
  addText(root, 'cbc:DocumentCurrencyCode', invoice.currency);
  addText(root, 'cbc:BuyerReference', invoice.buyerReference);
  if (invoice.orderReference) addText(root.ele('cac:OrderReference'), 'cbc:ID', invoice.orderReference);
  if (invoice.preceding) {
    const reference = root.ele('cac:BillingReference').ele('cac:InvoiceDocumentReference');
    addText(reference, 'cbc:ID', invoice.preceding.number);
    addText(reference, 'cbc:IssueDate', invoice.preceding.date);
  }
  for (const document of invoice.supportingDocuments) {
    const reference = root.ele('cac:AdditionalDocumentReference');
    addText(reference, 'cbc:ID', document.id);
    addText(reference, 'cbc:DocumentDescription', document.description);
    addText(reference.ele('cac:Attachment').ele('cac:ExternalReference'), 'cbc:URI', document.uri);
  }
  party(root.ele('cac:AccountingSupplierParty').ele('cac:Party'), invoice.seller);
  party(root.ele('cac:AccountingCustomerParty').ele('cac:Party'), invoice.buyer);
  if (invoice.delivery) {
    const delivery = root.ele('cac:Delivery');
    addText(delivery, 'cbc:ActualDeliveryDate', invoice.delivery.date);
    addText(delivery.ele('cac:DeliveryLocation').ele('cac:Address').ele('cac:Country'), 'cbc:IdentificationCode', invoice.delivery.country);
  }
  paymentMeans(root, invoice);
  if (invoice.paymentTerms) addText(root.ele('cac:PaymentTerms'), 'cbc:Note', invoice.paymentTerms);
  for (const item of invoice.allowanceCharges) allowanceCharge(root, item, money, true);

  const taxTotal = root.ele('cac:TaxTotal');
  money(taxTotal, 'cbc:TaxAmount', invoice.totals.vat);
  for (const group of invoice.vatGroups) {
    const subtotal = taxTotal.ele('cac:TaxSubtotal');
    money(subtotal, 'cbc:TaxableAmount', group.base);
    money(subtotal, 'cbc:TaxAmount', group.vat);
    taxCategory(subtotal.ele('cac:TaxCategory'), group.category, true);
  }

  const totals = root.ele('cac:LegalMonetaryTotal');
  money(totals, 'cbc:LineExtensionAmount', invoice.totals.lineTotal);
  money(totals, 'cbc:TaxExclusiveAmount', invoice.totals.taxExclusive);
  money(totals, 'cbc:TaxInclusiveAmount', invoice.totals.taxInclusive);
  if (invoice.allowanceCharges.some((item) => !item.charge)) money(totals, 'cbc:AllowanceTotalAmount', invoice.totals.allowanceTotal);
  if (invoice.allowanceCharges.some((item) => item.charge)) money(totals, 'cbc:ChargeTotalAmount', invoice.totals.chargeTotal);
  if (!invoice.totals.prepaid.isZero()) money(totals, 'cbc:PrepaidAmount', invoice.totals.prepaid);
  if (!invoice.totals.rounding.isZero()) money(totals, 'cbc:PayableRoundingAmount', invoice.totals.rounding);
  money(totals, 'cbc:PayableAmount', invoice.totals.payable);

  for (const item of invoice.lines) line(root.ele(credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine'), item, credit, money, invoice.currency);
  return doc.end({ prettyPrint: true });
}

type Money = (parent: XmlNode, name: string, value: Dec) => void;

function party(node: XmlNode, data: EnParty): void {
  if (data.tradeName) addText(node.ele('cac:PartyName'), 'cbc:Name', data.tradeName);
  const address = node.ele('cac:PostalAddress');
  addText(address, 'cbc:StreetName', data.street);
  addText(address, 'cbc:CityName', data.city);
  addText(address, 'cbc:PostalZone', data.postcode);
  addText(address, 'cbc:CountrySubentity', data.province);
  addText(address.ele('cac:Country'), 'cbc:IdentificationCode', data.country);
  if (data.vatId) {
    const scheme = node.ele('cac:PartyTaxScheme');
    addText(scheme, 'cbc:CompanyID', data.vatId);
    addText(scheme.ele('cac:TaxScheme'), 'cbc:ID', 'VAT');
  }
  const legal = node.ele('cac:PartyLegalEntity');
  addText(legal, 'cbc:RegistrationName', data.name);
  addText(legal, 'cbc:CompanyID', data.legalId);
  if (data.phone || data.email) {
    const contact = node.ele('cac:Contact');
    addText(contact, 'cbc:Telephone', data.phone);
    addText(contact, 'cbc:ElectronicMail', data.email);
  }
}

function paymentMeans(root: XmlNode, invoice: EnInvoice): void {
  const { payment } = invoice;
  const means = root.ele('cac:PaymentMeans');
  addText(means, 'cbc:PaymentMeansCode', payment.code, payment.text ? { name: payment.text } : undefined);
  // A UBL 2.1 CreditNote has no DueDate: EN 16931 binds BT-9 to the payment means there.
  if (invoice.creditNote) addText(means, 'cbc:PaymentDueDate', invoice.dueDate);
  addText(means, 'cbc:PaymentID', invoice.paymentId);
  if (payment.payeeIban) {
    const account = means.ele('cac:PayeeFinancialAccount');
    addText(account, 'cbc:ID', payment.payeeIban);
    if (payment.payeeBic) addText(account.ele('cac:FinancialInstitutionBranch'), 'cbc:ID', payment.payeeBic);
  }
  if (payment.mandate || payment.debitedIban) {
    const mandate = means.ele('cac:PaymentMandate');
    addText(mandate, 'cbc:ID', payment.mandate);
    if (payment.debitedIban) addText(mandate.ele('cac:PayerFinancialAccount'), 'cbc:ID', payment.debitedIban);
  }
}

function allowanceCharge(parent: XmlNode, item: Pick<EnAllowanceCharge, 'charge' | 'amount' | 'reason' | 'reasonCode'> & { category?: VatCategory }, money: Money, documentLevel: boolean): void {
  const node = parent.ele('cac:AllowanceCharge');
  addText(node, 'cbc:ChargeIndicator', String(item.charge));
  addText(node, 'cbc:AllowanceChargeReasonCode', item.reasonCode);
  addText(node, 'cbc:AllowanceChargeReason', item.reason);
  money(node, 'cbc:Amount', item.amount);
  if (documentLevel && item.category) taxCategory(node.ele('cac:TaxCategory'), item.category, false);
}

/** A TaxCategory: rate omitted for not-subject (BR-O-06/07); the exemption reason only in the breakdown. */
function taxCategory(node: XmlNode, category: VatCategory, breakdown: boolean): void {
  addText(node, 'cbc:ID', category.code);
  if (category.rate !== null) addText(node, 'cbc:Percent', numberText(category.rate, 4));
  if (breakdown) {
    addText(node, 'cbc:TaxExemptionReasonCode', category.exemptionCode);
    addText(node, 'cbc:TaxExemptionReason', category.exemptionText);
  }
  addText(node.ele('cac:TaxScheme'), 'cbc:ID', 'VAT');
}

function line(node: XmlNode, item: EnLine, credit: boolean, money: Money, currencyID: string): void {
  addText(node, 'cbc:ID', item.id);
  addText(node, credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', numberText(item.quantity), { unitCode: 'C62' });
  money(node, 'cbc:LineExtensionAmount', item.netAmount);
  if (item.adjustment) allowanceCharge(node, item.adjustment, money, false);
  const product = node.ele('cac:Item');
  addText(product, 'cbc:Description', item.description);
  addText(product, 'cbc:Name', item.name);
  if (item.sellerItemId) addText(product.ele('cac:SellersItemIdentification'), 'cbc:ID', item.sellerItemId);
  const tax = product.ele('cac:ClassifiedTaxCategory');
  addText(tax, 'cbc:ID', item.category.code);
  if (item.category.rate !== null) addText(tax, 'cbc:Percent', numberText(item.category.rate, 4));
  addText(tax.ele('cac:TaxScheme'), 'cbc:ID', 'VAT');
  node.ele('cac:Price').ele('cbc:PriceAmount', { currencyID }).txt(numberText(item.price));
}
