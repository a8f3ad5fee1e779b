import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { hookPoint } from '../../hooks.ts';
import type { DocumentType } from '../documents/index.ts';

/** An invoice a recurring template issued, whose template sends its invoices by e-mail. */
export interface IssuedInvoice {
  ctx: AppContext;
  type: DocumentType;
  idfactura: number;
  /**
   * Marks the period's e-mail queued, in the transaction `db` that queues it; false when another
   * run did already (then nothing may be queued: the handler rolls its transaction back).
   */
  claim(db: DbExecutor): Promise<boolean>;
}

/**
 * Asked once per billed invoice whose template has `enviaremail` (docs/recurring.md): the mail
 * module queues it to the customer. An AppError (no e-mail for the customer, mail not set up) is
 * kept on the period as why it did not go.
 */
export const recurringInvoiceIssued = hookPoint<IssuedInvoice, true>('recurring.issued');
