import { insertReceiptStatement, newReceipt, type InvoiceForReceipts } from '../payments/index.ts';
import type { PaymentTerms } from '../finance/index.ts';
import type { DocumentInWriting, PartMaker } from './document-parts.ts';
import { forReceipts, payInvoiceReceipts, syncInvoiceReceipts } from './invoice-receipts.ts';

/**
 * A new invoice's receipt (payments' ReceiptGenerator): one receipt of its total, due by the
 * payment method's terms and the customer's payment days, inserted with the lines; an invoice
 * whose receipt is already due is stored overdue. An invoice paid at once (its payment method
 * pays, or the request said `pagada`) takes the payments module's own path after the lines, one
 * statement at a time: its payment and that payment's entry.
 */
export function receiptsPart(terms: PaymentTerms | undefined, paymentDays: string | null | undefined, pagada: boolean): PartMaker {
  return () => {
    let receipt: { invoice: InvoiceForReceipts; values: Record<string, unknown> } | undefined;
    const paidAtOnce = pagada || Boolean(terms?.pagado);
    return {
      beforeHeader(doc) {
        const total = Number(doc.header.total ?? 0);
        if (paidAtOnce || total === 0) return;
        const invoice = forReceipts(doc.type, { ...doc.header, [doc.type.key]: 0 });
        const { values } = newReceipt(doc.ctx.database.dialect, invoice, total, 1, terms, paymentDays ?? null);
        const overdue = String(values.vencimiento) < doc.ref.today.date;
        if (overdue) {
          values.vencido = doc.ctx.database.dialect.boolean(true);
          doc.header.vencida = true;
        }
        receipt = { invoice, values };
      },
      afterHeader(doc) {
        if (receipt) doc.batch.add(insertReceiptStatement(doc.db, doc.type.side, { ...receipt.values, idfactura: doc.idReference }));
      },
      // Only for an invoice paid at once: a part without `finish` may commit with its batch (write-document.ts).
      ...(paidAtOnce ? { finish } : {}),
    };
    async function finish(doc: DocumentInWriting) {
      if (Number(doc.header.total ?? 0) === 0) return;
      const call = { db: doc.db, dialect: doc.ctx.database.dialect, type: doc.type, invoice: doc.header, decimals: doc.ref.settings.decimals, today: doc.ref.today, hooks: doc.ctx.hooks };
      const recorded = await syncInvoiceReceipts({ ...call, fresh: true, terms, paymentDays });
      const paid = pagada ? await payInvoiceReceipts(call, true, doc.ref.today.date) : [];
      doc.changed = true;
      doc.payments = { recorded: recorded + paid.length, paid };
    }
  };
}
