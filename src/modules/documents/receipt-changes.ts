import type { AppContext, RecordWriter } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import type { Values } from '../../models/define-model.ts';
import { readInput, type ReadOptions } from '../../models/read-input.ts';
import type { InputSource } from '../../models/coerce.ts';
import type { FieldValue } from '../../models/fields.ts';
import {
  customerReceiptModel, invoicePaymentState, setReceiptPaid, supplierReceiptModel, type InvoiceSide, type ReceiptPaymentChange, type ReceiptTerms,
} from '../payments/index.ts';
import { settingsIn } from '../settings/index.ts';
import { lockCustomer, settleCustomerRisk, type LockedCustomer } from './customer-risk.ts';
import { paymentEvents } from './document-events.ts';
import { headerOf, type Row } from './document-repository.ts';
import { documentType, type DocumentType } from './document-types.ts';
import { forReceipts, storePaymentState } from './invoice-receipts.ts';

/**
 * Receipts changed one at a time, not an invoice's all at once: through their own resource, or by
 * the banking module (a remittance collected, a direct debit returned, a bank movement reconciled).
 * What follows from them is written in the same transaction: the invoices' `pagada`/`vencida` from
 * their receipts, and their customers' risk counted again.
 *
 * Locks in the write path's order (decision 0014): the customers by code, then the invoices by id,
 * before any receipt is written; the entries' counter is taken after, by the payments' entries.
 */

const INVOICE: Record<InvoiceSide, DocumentType> = { sales: documentType('FacturaCliente'), purchase: documentType('FacturaProveedor') };
const RECEIPT = { sales: customerReceiptModel, purchase: supplierReceiptModel };

async function receiptTerms(ctx: AppContext, db: DbExecutor): Promise<ReceiptTerms> {
  return { decimals: (await settingsIn(db)).decimals, today: ctx.clock.today(), hooks: ctx.hooks };
}

/**
 * Runs `write` (which changes receipts of the named invoices, or of the invoices of the named
 * receipts) under those invoices' locks, then settles them and their customers' risk.
 */
async function withInvoicesSettled<T>(
  ctx: AppContext, trx: DbExecutor, side: InvoiceSide, named: { receipts?: readonly number[]; invoices?: readonly unknown[] }, write: (terms: ReceiptTerms) => Promise<T>,
): Promise<T> {
  const { dialect } = ctx.database;
  const type = INVOICE[side];
  const ids = new Set<number>();
  for (const id of named.invoices ?? []) if (id !== null && id !== undefined && id !== '') ids.add(Number(id));
  if (named.receipts?.length) {
    const rows = await trx.selectFrom(RECEIPT[side].table).select('idfactura').distinct().where('idrecibo', 'in', [...named.receipts]).execute();
    for (const row of rows) if (row.idfactura !== null) ids.add(Number(row.idfactura));
  }
  const invoices = [...ids].filter(Number.isFinite).sort((a, b) => a - b);
  const customers: LockedCustomer[] = [];
  if (invoices.length && side === 'sales') {
    const codes = await trx.selectFrom(type.header.table).select('codcliente').distinct().where(type.key, 'in', invoices).execute();
    for (const code of codes.map((row) => String(row.codcliente)).sort()) {
      const locked = await lockCustomer(trx, dialect, code);
      if (locked) customers.push(locked);
    }
  }
  if (invoices.length) await dialect.locking(trx.selectFrom(type.header.table).select(type.key).where(type.key, 'in', invoices).orderBy(type.key)).execute();
  const terms = await receiptTerms(ctx, trx);
  const result = await write(terms);
  for (const id of invoices) {
    const header = await headerOf(trx, type, id);
    if (header) await storePaymentState(trx, dialect, type, id, await invoicePaymentState(trx, dialect, forReceipts(type, header), terms));
  }
  for (const customer of customers) await settleCustomerRisk(trx, dialect, terms.decimals, customer);
  return result;
}

/** A receipt to pay or un-pay on a date (see ReceiptPaymentChange). */
export interface ReceiptPaymentRequest extends Omit<ReceiptPaymentChange, 'nick' | 'idempresa'> {
  idrecibo: number;
}

/**
 * Pays or un-pays single receipts in the caller's transaction, each through the payment path (its
 * movement recorded and posted, `receipt.paid` announced); the invoices and risks follow. A
 * receipt already in the requested state is left alone. Answers the receipts that changed, as
 * they are now; an unknown receipt is `record-not-found`.
 */
export async function payReceipts(ctx: AppContext, trx: DbExecutor, side: InvoiceSide, requests: readonly ReceiptPaymentRequest[]): Promise<Row[]> {
  if (!requests.length) return [];
  const ids = requests.map((request) => request.idrecibo);
  return withInvoicesSettled(ctx, trx, side, { receipts: ids }, async (terms) => {
    const { dialect } = ctx.database;
    const rows = new Map((await trx.selectFrom(RECEIPT[side].table).selectAll().where('idrecibo', 'in', ids).execute()).map((row) => [Number(row.idrecibo), row as Row]));
    const changed: Row[] = [];
    for (const request of requests) {
      const receipt = rows.get(request.idrecibo);
      if (!receipt) throw new AppError('record-not-found', { idrecibo: request.idrecibo });
      const { idrecibo: _id, ...change } = request;
      if (await setReceiptPaid(trx, dialect, terms, side, receipt, { ...change, nick: receipt.nick, idempresa: Number(receipt.idempresa) })) changed.push(receipt);
    }
    const byInvoice = Map.groupBy(changed, (receipt) => receipt.idfactura);
    for (const [idfactura, receipts] of byInvoice) {
      for (const paid of [true, false]) {
        const moved = receipts.filter((receipt) => receipt.pagado === paid);
        if (moved.length) await publish(trx, ctx, ...paymentEvents(INVOICE[side], idfactura, moved, paid, moved.length));
      }
    }
    return changed;
  });
}

/**
 * Receipts written through their own resource (`reciboclientes`, `reciboproveedores`): the store's
 * rules and the payment movement of a `pagado` change (payments module) as before, under their
 * invoice's lock, and the invoice's payment state and its customer's risk follow in the same
 * transaction (a receipt paid this way used to leave its invoice unpaid).
 */
export function receiptWriter(ctx: AppContext, side: InvoiceSide): RecordWriter {
  const model = RECEIPT[side];
  const within = <T>(named: { receipts?: number[]; invoices?: unknown[] }, write: (trx: DbExecutor) => Promise<T>) =>
    inTransaction(ctx.database, (trx) => withInvoicesSettled(ctx, trx, side, named, () => write(trx)));
  return {
    async create(body: unknown, source: InputSource, options?: ReadOptions) {
      const values: Values = readInput(model, body, source, 'create', undefined, options);
      return within({ invoices: [values.idfactura] }, async (trx) => {
        const { record, reveal } = await ctx.store.create(model, values, trx);
        return { ...record, ...reveal };
      });
    },
    async update(id: FieldValue, body: unknown, source: InputSource, options?: ReadOptions) {
      const values = readInput(model, body, source, 'update', id, options);
      return within({ receipts: [Number(id)], invoices: [values.idfactura] }, (trx) => ctx.store.update(model, id, values, trx));
    },
    remove: (id: FieldValue) => within({ receipts: [Number(id)] }, (trx) => ctx.store.remove(model, id, trx)),
  };
}
