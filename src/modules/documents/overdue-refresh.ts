import type { AppContext } from '../../app-context.ts';
import { markOverdueReceipts, overdueInvoiceIds } from '../payments/index.ts';
import { DOCUMENT_TYPES } from './document-types.ts';

/**
 * Receipts fall due with the calendar, not with a write: this marks unpaid receipts past their due
 * date `vencido`, and their invoices `vencida` (the reference's cron does the same), by the
 * installation's date. Idempotent, so every instance may run it.
 */
export async function refreshOverdue(ctx: AppContext): Promise<number> {
  const db = ctx.database.kysely;
  const { dialect } = ctx.database;
  await ctx.settings(); // the clock's zone follows the settings
  const today = ctx.clock.today().date;
  let changed = 0;
  for (const type of DOCUMENT_TYPES.filter((candidate) => candidate.invoice)) {
    changed += await markOverdueReceipts(db, dialect, type.side, today);
    await db.updateTable(type.header.table).set({ vencida: dialect.boolean(true) })
      .where('vencida', '=', dialect.boolean(false))
      .where(type.key, 'in', overdueInvoiceIds(dialect, type.side))
      .execute();
  }
  return changed;
}
