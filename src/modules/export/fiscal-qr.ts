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
  /**
   * Where the PDF prints it: `top` of page 1 (the AEAT's rule, the default), or at the `end` of
   * the invoice, after its last text (TicketBAI specification 1.2 §4.3.1, portrait layout).
   */
  placement?: 'top' | 'end';
}

/**
 * Asks for the fiscal QR of a document being exported, in the export's read transaction (src/hooks.ts).
 * The PDF prints it at the top of the first page; e-invoices carry its address.
 */
export const fiscalQr = hookPoint<{ db: DbExecutor; type: DocumentType; doc: Row }, FiscalQr>('export.fiscalQr');
