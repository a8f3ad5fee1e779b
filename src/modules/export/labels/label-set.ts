import type { DocumentKind } from '../export-view.ts';

/** Every text an exported document prints, in one language. */
export interface Labels {
  /** BCP 47 tag for number and date formats (`es-ES`). */
  locale: string;
  titles: Record<DocumentKind, string>;
  /** The title of a rectifying invoice (a refund). */
  creditNote: string;
  /** The title of a simplified invoice (series type `S`). */
  simplifiedInvoice: string;
  code: string;
  number: string;
  date: string;
  dueDate: string;
  taxPointDate: string;
  customer: string;
  supplier: string;
  taxId: string;
  address: string;
  phone: string;
  email: string;
  reference: string;
  description: string;
  quantity: string;
  unitPrice: string;
  discount: string;
  tax: string;
  amount: string;
  taxBase: string;
  vat: string;
  surcharge: string;
  irpf: string;
  supplied: string;
  lineTotal: string;
  globalDiscount: string;
  net: string;
  total: string;
  paymentMethod: string;
  iban: string;
  /** The bank's identifier code (SWIFT) printed with the IBAN. */
  bic: string;
  /** A direct debit's mandate reference. */
  mandate: string;
  receipts: string;
  receipt: string;
  paid: string;
  pending: string;
  rectifies: string;
  observations: string;
  customerOrder: string;
  supplierNumber: string;
  /** `Page {page} of {pages}`. */
  pageOf: string;
  draft: string;
  /** The word of a file name (`Invoice_FAC2026A1.pdf`): per document kind, no spaces. */
  fileWords: Record<DocumentKind, string>;
  creditNoteFileWord: string;
}
