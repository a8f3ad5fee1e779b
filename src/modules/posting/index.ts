import type { AppContext } from '../../app-context.ts';
import type { Module } from '../../module.ts';
import { asientoModel, removeEntries } from '../accounting/index.ts';
import { DOCUMENT_TYPES, documentChanged, documentCreated, documentRemoving, linesOf, sameValue } from '../documents/index.ts';
import { customerPaymentModel, paymentRecorded, paymentsRemoving, supplierPaymentModel } from '../payments/index.ts';
import { guardYearClosing } from './closing-guard.ts';
import { postPaymentWrites } from './payment-writes.ts';
import { postOrWarn } from './not-posted.ts';
import { postInvoice } from './post-invoice.ts';
import { postNewInvoices } from './invoice-part.ts';
import { postPreparedPayments } from './payment-part.ts';
import { declarePostingReference } from './posting-reference.ts';
import { postPayment } from './post-payment.ts';

/** An invoice's entry is replaced when one of these changes (the reference's rule); other edits keep it. */
const POSTED_FIELDS = ['total', 'fecha', 'fechadevengo', 'codpago', 'codcliente', 'codproveedor'];

const changed = (before: Record<string, unknown>, after: Record<string, unknown>, name: string) => name in after && !sameValue(before[name], after[name]);

const PAYMENT_RESOURCES = { sales: 'pagocliente', purchase: 'pagoproveedor' } as const;

function postDocuments(ctx: AppContext): void {
  ctx.hooks.on(documentCreated, async ({ db, ref, type, id, header, lines }) => {
    if (!type.invoice) return;
    await postOrWarn(ctx, db, { resource: type.header.resource, id, codejercicio: String(header.codejercicio) },
      () => postInvoice(ctx, db, ref, type, header, lines));
  });
  ctx.hooks.on(documentChanged, async ({ db, ref, type, id, before, after }) => {
    if (!type.invoice || !POSTED_FIELDS.some((name) => changed(before, after, name))) return;
    // The new entry first, so that it takes the year's next number, then the old one goes: refused
    // whole (409 entry-locked) when the old one is in a closed year or a locked settlement.
    await postOrWarn(ctx, db, { resource: type.header.resource, id, codejercicio: String(after.codejercicio) },
      async () => postInvoice(ctx, db, ref, type, after, await linesOf(db, type, id)));
    if (after.idasiento === null || after.idasiento === undefined) return;
    await removeEntries(db, ctx.database.dialect, [Number(after.idasiento)]);
    await db.updateTable(type.header.table).set({ idasiento: null }).where(type.key, '=', id).where('idasiento', '=', Number(after.idasiento)).execute();
  });
  ctx.hooks.on(documentRemoving, async ({ db, type, doc }) => {
    if (type.invoice && doc.idasiento !== null && doc.idasiento !== undefined) await removeEntries(db, ctx.database.dialect, [Number(doc.idasiento)]);
  });
}

function postPayments(ctx: AppContext): void {
  ctx.hooks.on(paymentRecorded, async ({ db, side, payment, receipt, idempresa, decimals, codcuenta }) => {
    await postOrWarn(ctx, db, { resource: PAYMENT_RESOURCES[side], id: Number(payment.idpago), codejercicio: null },
      () => postPayment(ctx, db, side, payment, receipt, idempresa, decimals, codcuenta));
  });
  ctx.hooks.on(paymentsRemoving, async ({ db, payments }) => {
    const ids = payments.map((payment) => payment.idasiento).filter((id) => id !== null && id !== undefined).map(Number);
    await removeEntries(db, ctx.database.dialect, ids);
  });
}

/** An entry deleted through its own resource leaves its invoice or payment without one (no dangling `idasiento`). */
function forgetDeletedEntries(ctx: AppContext): void {
  const tables = [...DOCUMENT_TYPES.filter((type) => type.invoice).map((type) => type.header.table), customerPaymentModel.table, supplierPaymentModel.table];
  ctx.store.onDeleted(async ({ db, model, existing }) => {
    if (model !== asientoModel) return;
    for (const table of tables) await db.updateTable(table).set({ idasiento: null }).where('idasiento', '=', Number(existing.idasiento)).execute();
  });
}

/**
 * Posting to the accounts (docs/accounting.md): every invoice with a total and every payment
 * movement gets its accounting entry in the same transaction, when its fiscal year has a chart;
 * entries are replaced when what they show changes and go with their documents. Through the
 * document and payment hook points, so that neither module knows about accounting.
 */
export function postingModule(): Module {
  return {
    name: 'posting',
    setup(ctx) {
      declarePostingReference(ctx);
      postNewInvoices(ctx);
      postPreparedPayments(ctx);
      postDocuments(ctx);
      postPayments(ctx);
      forgetDeletedEntries(ctx);
      guardYearClosing(ctx);
      postPaymentWrites(ctx);
    },
  };
}
