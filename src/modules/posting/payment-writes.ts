import type { AppContext } from '../../app-context.ts';
import { removeEntries } from '../accounting/index.ts';
import { customerPaymentModel, customerReceiptModel, supplierPaymentModel, supplierReceiptModel } from '../payments/index.ts';
import { settingsIn } from '../settings/index.ts';
import { postOrWarn } from './not-posted.ts';
import { postPayment } from './post-payment.ts';

const SIDES = [
  { side: 'sales', payment: customerPaymentModel, receipt: customerReceiptModel },
  { side: 'purchase', payment: supplierPaymentModel, receipt: supplierReceiptModel },
] as const;

/**
 * Payment rows written through their own resources (`pagoclientes`, `pagoproveedores`) are posted
 * and unposted like those the receipts record: a new one gets its entry, a deleted one takes its
 * entry with it, and a receipt deleted through its resource takes its payments' entries (its
 * payments go with it by the database's cascade). Refused (409 `entry-locked`) when an entry is in
 * a closed year or a locked VAT settlement.
 */
export function postPaymentWrites(ctx: AppContext): void {
  const { dialect } = ctx.database;
  for (const { side, payment, receipt } of SIDES) {
    ctx.store.watch([payment.resource], async (db, _model, change) => {
      if (change?.action !== 'create') return;
      const row = await db.selectFrom(receipt.table).selectAll().where('idrecibo', '=', Number(change.record.idrecibo)).executeTakeFirst();
      if (!row) return;
      const { decimals } = await settingsIn(db);
      await postOrWarn(ctx, db, { resource: payment.resource, id: Number(change.record.idpago), codejercicio: null },
        () => postPayment(ctx, db, side, change.record, row, Number(row.idempresa), decimals));
    });
    ctx.store.guardDelete([payment.resource], async ({ db, existing }) => {
      if (existing.idasiento !== null && existing.idasiento !== undefined) await removeEntries(db, dialect, [Number(existing.idasiento)]);
    });
    ctx.store.guardDelete([receipt.resource], async ({ db, existing }) => {
      const entries = await db.selectFrom(payment.table).select('idasiento').where('idrecibo', '=', Number(existing.idrecibo)).where('idasiento', 'is not', null).execute();
      await removeEntries(db, dialect, entries.map((entry) => Number(entry.idasiento)));
    });
  }
}
