import type { DbExecutor } from '../../db/database.ts';
import { hookPoint } from '../../hooks.ts';
import type { DocumentType, Row } from '../documents/index.ts';

/**
 * The QR code a tax regime puts on an invoice (VERI*FACTU: the AEAT's validation address), with the
 * texts printed with it: `caption` above it, `legend` below it (or none).
 */
export interface FiscalQr {
  url: string;
  caption: string;
  legend: string | null;
}

/**
 * Asks for the fiscal QR of a document being exported, in the export's read transaction (src/hooks.ts).
 * The PDF prints it at the top of the first page; e-invoices carry its address.
 */
export const fiscalQr = hookPoint<{ db: DbExecutor; type: DocumentType; doc: Row }, FiscalQr>('export.fiscalQr');
