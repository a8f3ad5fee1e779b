/**
 * What every exporter renders: one document as its reader sees it, already resolved (parties,
 * addresses, labels' language, tax breakdown, receipts, print format). Renderers are pure
 * functions of this view; they never read the database, so they are tested on built views and
 * the loader (`load-export-view.ts`) is tested once.
 *
 * Amounts are numbers already rounded as stored (to the currency's `decimals`); rates are
 * percentages (21 = 21 %). Dates are `YYYY-MM-DD`, times `HH:MM:SS`, in the installation's time
 * zone (business dates).
 */

import type { FiscalQr } from './fiscal-qr.ts';

/** The eight exportable documents, by the names of the reference's endpoints. */
export type ExportDocumentType =
  | 'FacturaCliente' | 'AlbaranCliente' | 'PedidoCliente' | 'PresupuestoCliente'
  | 'FacturaProveedor' | 'AlbaranProveedor' | 'PedidoProveedor' | 'PresupuestoProveedor';

export type DocumentKind = 'invoice' | 'deliveryNote' | 'order' | 'quote';

export interface ExportAddress {
  street: string;
  postcode: string;
  city: string;
  province: string;
  /** The installation's country code (ISO 3166-1 alpha-3, `ESP`) and its alpha-2 (`ES`), or null. */
  country: string | null;
  countryIso2: string | null;
  countryName: string | null;
}

export interface ExportParty {
  /** `codcliente` / `codproveedor`; null for the company. */
  code: string | null;
  /** The trade name shown first (`nombre`, or the document's `nombrecliente`). */
  name: string;
  /** The legal name (`razonsocial`; the company's `nombre`). */
  legalName: string;
  taxId: string;
  /** `NIF`, `CIF`, `NIE`, `Pasaporte`, `VAT` ... as the installation names them. */
  taxIdType: string | null;
  /** A natural person (`personafisica`): Facturae needs it. */
  naturalPerson: boolean;
  address: ExportAddress;
  email: string;
  phone: string;
  web: string;
}

export interface ExportLine {
  /** 1-based position in the document's order. */
  position: number;
  reference: string | null;
  description: string;
  quantity: number;
  unitPrice: number;
  /** The line's two cascaded discounts, percentages. */
  discount: number;
  discount2: number;
  /** `pvpsindto`: quantity x unit price, before the line's discounts (not rounded). */
  grossAmount: number;
  /** `pvptotal`: after the line's discounts, before the document's global discounts (not rounded). */
  netAmount: number;
  taxCode: string | null;
  vatRate: number;
  surchargeRate: number;
  irpfRate: number;
  /** The VAT exemption cause (`excepcioniva`, e.g. `ES_20`), when the line has one. */
  vatException: string | null;
  /** A supplied (`suplido`) amount: paid on the customer's behalf, outside the tax base. */
  supplied: boolean;
  /** Sales lines may hide their quantity or price on paper (`mostrar_cantidad`, `mostrar_precio`). */
  showQuantity: boolean;
  showPrice: boolean;
  /** Start a new page before this line (`salto_pagina`). */
  pageBreakBefore: boolean;
}

/** One row of the tax breakdown: all lines of one VAT rate and surcharge rate. */
export interface ExportTaxGroup {
  taxCode: string | null;
  vatRate: number;
  surchargeRate: number;
  /** Taxable base after the document's global discounts. */
  base: number;
  vat: number;
  surcharge: number;
  /** The exemption cause of the group's lines (`ES_20` ...) when its rate is 0, else null. */
  vatException: string | null;
}

export interface ExportTotals {
  /** Sum of the lines' net amounts before the global discounts (`netosindto`). */
  lineTotal: number;
  /** The document's cascaded global discounts (`dtopor1`, `dtopor2`), percentages. */
  globalDiscount: number;
  globalDiscount2: number;
  /** Tax base after the global discounts (`neto`). */
  net: number;
  vat: number;
  surcharge: number;
  irpfRate: number;
  irpf: number;
  supplied: number;
  /** What the customer pays: net + vat + surcharge - irpf + supplied (`total`). */
  total: number;
}

export interface ExportReceipt {
  number: number;
  amount: number;
  dueDate: string;
  paid: boolean;
  paymentDate: string | null;
}

export interface ExportPaymentMethod {
  code: string;
  description: string;
  /** Direct debit (`domiciliado`): the customer's bank account is charged. */
  directDebit: boolean;
  /** The company's account to pay into (the method's bank account), when it has one. */
  iban: string | null;
  swift: string | null;
  /** For a direct debit: the debited account (the customer's main bank account) and mandate. */
  debitIban: string | null;
  mandate: string | null;
}

/** The print format applied (`formatos_documentos`), if any. */
export interface ExportFormat {
  id: number;
  /** Replaces the document type's title (`Factura` -> `Factura proforma`). */
  title: string | null;
  /** Printed after the totals (conditions, registry data ...). */
  text: string | null;
}

export interface ExportCurrency {
  code: string;
  symbol: string;
  decimals: number;
}

export interface ExportView {
  type: ExportDocumentType;
  kind: DocumentKind;
  side: 'sales' | 'purchase';
  id: number;
  /** `codigo`, e.g. `FAC2026A1`. */
  code: string;
  number: string;
  series: string;
  /** The series' type: `R` rectifying (a refund), `S` simplified, or null. */
  seriesType: string | null;
  date: string;
  time: string | null;
  /** Invoices: the date the last receipt falls due (or the date); others null. */
  dueDate: string | null;
  /** Invoices: the tax point (`fechadevengo`), when it differs from the date. */
  taxPointDate: string | null;
  /** The supplier's own number of a purchase document (`numproveedor`), or the customer's order number (`numero2`). */
  externalNumber: string | null;
  currency: ExportCurrency;
  /** Still editable: an invoice prints a draft mark. */
  editable: boolean;
  /** Invoices: paid in full. */
  paid: boolean;
  /** The invoice a refund rectifies. */
  rectifies: { code: string; date: string } | null;
  /** `operacion` (`intracomunitaria`, `exportacion` ...), null for a plain domestic operation. */
  operation: string | null;
  observations: string;
  /** The installation's company (seller of a sale, buyer of a purchase). */
  company: ExportParty;
  /** The customer or supplier, with the address printed on the document. */
  subject: ExportParty;
  /** The company's logo (PNG or JPEG bytes) when it has one among its files. */
  logo: Uint8Array | null;
  paymentMethod: ExportPaymentMethod | null;
  lines: ExportLine[];
  taxes: ExportTaxGroup[];
  totals: ExportTotals;
  /** Invoices: their receipts, by number. */
  receipts: ExportReceipt[];
  format: ExportFormat | null;
  /** The language chosen for labels and number formats (a key of the label tables: `es`, `en` ...). */
  lang: string;
  /** The invoice's fiscal QR (VERI*FACTU), when a module gives one (fiscal-qr.ts); an invoice with one is issued, never a draft. */
  fiscalQr: FiscalQr | null;
}

/** Seller and buyer of the document: the company sells on the sales side, buys on the purchase side. */
export function partiesOf(view: Pick<ExportView, 'side' | 'company' | 'subject'>): { seller: ExportParty; buyer: ExportParty } {
  return view.side === 'sales' ? { seller: view.company, buyer: view.subject } : { seller: view.subject, buyer: view.company };
}
