import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { DOCUMENT_TYPES } from './document-types.ts';
import { todayOf } from './receipts.ts';

/**
 * Receipts fall due with the calendar, not with a write: this marks unpaid receipts past their due
 * date `vencido`, and their invoices `vencida` (the reference's cron does the same). Idempotent, so
 * every instance may run it.
 */
export async function refreshOverdue(ctx: AppContext): Promise<number> {
  const db = ctx.database.kysely;
  const today = todayOf(ctx.clock.now()).date;
  let changed = 0;
  for (const type of DOCUMENT_TYPES.filter((candidate) => candidate.invoice)) {
    const receipts = type.receipt!.table;
    const marked = await db.updateTable(receipts).set({ vencido: 1 })
      .where('pagado', '=', 0).where('vencido', '=', 0).where('vencimiento', '<', today).executeTakeFirst();
    changed += Number(marked.numUpdatedRows);
    await db.updateTable(type.header.table).set({ vencida: 1 })
      .where('vencida', '=', 0)
      .where(type.key, 'in', sql`(SELECT r.idfactura FROM ${sql.table(receipts)} r WHERE r.vencido = ${1} AND r.pagado = ${0} AND r.idfactura IS NOT NULL)`)
      .execute();
  }
  return changed;
}
