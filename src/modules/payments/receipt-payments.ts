import type { AppContext } from '../../app-context.ts';
import { settingsIn } from '../settings/index.ts';
import { customerReceiptModel, supplierReceiptModel } from './receipt-models.ts';
import { insertPayment, type InvoiceSide } from './receipts.ts';

/**
 * A receipt paid or un-paid through its own resource (`PUT /api/3/reciboclientes/{id}` with
 * `pagado`) records its payment movement as `pagar*` does (+importe paid on its `fechapago`,
 * -importe un-paid today), in the same transaction; the movement is announced (`paymentRecorded`).
 */
export function recordPaymentsOfReceiptWrites(ctx: AppContext): void {
  const sides: Array<[InvoiceSide, string]> = [['sales', customerReceiptModel.resource], ['purchase', supplierReceiptModel.resource]];
  for (const [side, resource] of sides) {
    ctx.store.watch([resource], async (db, _model, change) => {
      if (change?.action !== 'update' || !change.before || (change.before.pagado === true) === (change.record.pagado === true)) return;
      const paid = change.record.pagado === true;
      const today = ctx.clock.today();
      const { decimals } = await settingsIn(db);
      await insertPayment(db, ctx.database.dialect, { decimals, today, hooks: ctx.hooks }, side, change.record, {
        importe: paid ? Number(change.record.importe ?? 0) : -Number(change.record.importe ?? 0),
        fecha: paid ? String(change.record.fechapago ?? today.date) : today.date,
        codpago: change.record.codpago,
        nick: change.record.nick,
        idempresa: Number(change.record.idempresa),
      });
    });
  }
}
