import type { DocumentKind } from '../export-view.ts';
import { ca } from './ca.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { it } from './it.ts';
import { pt } from './pt.ts';

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

const TABLES: Record<string, Labels> = { ca, de, en, es, fr, it, pt };

/** The languages with a label table, by their two-letter code. */
export const LANGUAGES = Object.keys(TABLES);

/**
 * The label table for a language code as clients send it (`es_ES`, `en-GB`, `EN`, `pt_BR`): its
 * first two letters, lower case. Anything unknown or empty is `undefined`; callers fall back.
 */
export function languageOf(code: string | null | undefined): string | undefined {
  if (typeof code !== 'string') return undefined;
  const key = code.trim().slice(0, 2).toLowerCase();
  return Object.hasOwn(TABLES, key) ? key : undefined;
}

/** The first of `candidates` that names a known language, else Spanish (the reference's default). */
export function chooseLanguage(...candidates: Array<string | null | undefined>): string {
  for (const candidate of candidates) {
    const lang = languageOf(candidate);
    if (lang) return lang;
  }
  return 'es';
}

export function labelsFor(lang: string): Labels {
  return TABLES[languageOf(lang) ?? 'es']!;
}
