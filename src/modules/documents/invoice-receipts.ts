import type { BusinessDay } from '../../clock.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import type { Hooks } from '../../hooks.ts';
import { setReceiptsPaid, syncReceipts, type InvoiceForReceipts, type InvoicePaymentState } from '../payments/index.ts';
import type { DocumentType } from './document-types.ts';
import type { PaymentTerms } from '../finance/index.ts';

type Row = Record<string, unknown>;

/** What the payments module needs to know of an invoice header. */
export function forReceipts(type: DocumentType, invoice: Row): InvoiceForReceipts {
  return {
    side: type.side,
    idfactura: Number(invoice[type.key]),
    codigo: String(invoice.codigo),
    total: Number(invoice.total ?? 0),
    fecha: String(invoice.fecha),
    codpago: (invoice.codpago as string | null) ?? null,
    coddivisa: String(invoice.coddivisa),
    idempresa: Number(invoice.idempresa),
    subject: String(invoice[type.subject]),
    nick: (invoice.nick as string | null) ?? null,
  };
}

/** Stores the payment state the receipts give the invoice (`pagada`, `vencida`). */
export async function storePaymentState(db: DbExecutor, dialect: SqlDialect, type: DocumentType, id: unknown, state: InvoicePaymentState): Promise<void> {
  await db.updateTable(type.header.table)
    .set({ pagada: dialect.boolean(state.pagada), vencida: dialect.boolean(state.vencida) })
    .where(type.key, '=', id as number).execute();
}

export interface ReceiptCall {
  db: DbExecutor;
  dialect: SqlDialect;
  type: DocumentType;
  invoice: Row;
  decimals: number;
  today: BusinessDay;
  hooks: Hooks;
  /** What the payments module may otherwise read itself (see InvoiceForReceipts). */
  fresh?: boolean;
  terms?: PaymentTerms;
  paymentDays?: string | null;
}

/** The invoice's receipts follow its total; returns the payments recorded. */
export async function syncInvoiceReceipts(c: ReceiptCall): Promise<number> {
  const invoice = { ...forReceipts(c.type, c.invoice), fresh: c.fresh, terms: c.terms, paymentDays: c.paymentDays };
  const { payments, state } = await syncReceipts(c.db, c.dialect, invoice, { decimals: c.decimals, today: c.today, hooks: c.hooks });
  // A new invoice was inserted unpaid and not overdue: that state needs no second write.
  if (!c.fresh || state.pagada || state.vencida) await storePaymentState(c.db, c.dialect, c.type, c.invoice[c.type.key], state);
  return payments;
}

/** Pays or unpays every receipt of the invoice; returns the receipts that changed. */
export async function payInvoiceReceipts(c: ReceiptCall, paid: boolean, fechapago?: string | null, codpago?: string | null): Promise<Row[]> {
  const { changed, state } = await setReceiptsPaid(c.db, c.dialect, forReceipts(c.type, c.invoice), { decimals: c.decimals, today: c.today, hooks: c.hooks }, paid, fechapago, codpago);
  await storePaymentState(c.db, c.dialect, c.type, c.invoice[c.type.key], state);
  return changed;
}
