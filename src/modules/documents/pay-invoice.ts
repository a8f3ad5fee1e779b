import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { hasPrecondition } from '../../db/preconditions.ts';
import { rowReader } from '../../db/row-codec.ts';
import { StatementBatch } from '../../db/statement-batch.ts';
import { guardedValue, GuardFailed } from '../../db/guard-sql.ts';
import { commitTail, inTransaction, warningsOf, type Warning } from '../../db/transaction.ts';
import { isRetryable } from '../../db/translate-error.ts';
import { AppError, validationError, fieldErrors } from '../../errors.ts';
import { publish, queueEventsInto } from '../../event-log.ts';
import type { Values } from '../../models/define-model.ts';
import { dec, roundNumber } from '../../models/round.ts';
import { paymentEvents } from './document-events.ts';
import { coerceValue, parseDate, type InputSource } from '../../models/coerce.ts';
import type { FieldValue } from '../../models/fields.ts';
import type { DocumentType } from './document-types.ts';
import { payInvoiceReceipts } from './invoice-receipts.ts';
import { addToRiskStatement } from '../customers/index.ts';
import { paymentMethodExists } from '../finance/index.ts';
import { invoiceWithReceipts, paymentModelOf, paymentPreparing, planReceiptPayments, receiptUpdates, type PaymentInWriting, type ReceiptChange } from '../payments/index.ts';
import { headerOf, lockDocument, visible, type Row } from './document-repository.ts';
import { loadReference, type DocumentReference } from './document-reference.ts';
import { documentRisk, settleCustomerRisk } from './customer-risk.ts';

export interface PaymentRequest {
  pagada: boolean;
  fechapago?: string;
  codpago?: string;
}

type PaymentAnswer = { ok: string; data: Record<string, unknown>; warnings?: Warning[] };

/** `pagada` (required), `fechapago` (either date format), `codpago` of a payment request. */
export function readPaymentRequest(type: DocumentType, body: unknown, source: InputSource): PaymentRequest {
  const fields = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (fields.pagada === undefined || fields.pagada === null) throw new AppError('missing-pagada-parameter');
  const pagada = coerceValue(type.header.fields.pagada!, fields.pagada, source);
  const errors = fieldErrors();
  if (!pagada.ok) errors.pagada = pagada.reason;
  let fechapago: string | undefined;
  if (fields.fechapago !== undefined && fields.fechapago !== null && fields.fechapago !== '') {
    fechapago = typeof fields.fechapago === 'string' ? parseDate(fields.fechapago.trim()) : undefined;
    if (!fechapago) errors.fechapago = 'invalid-date';
  }
  const codpago = fields.codpago === undefined || fields.codpago === null || fields.codpago === '' ? undefined : String(fields.codpago);
  if (Object.keys(errors).length) throw validationError(errors);
  return { pagada: pagada.ok && pagada.value === true, fechapago, codpago };
}

/** The invoice and its receipts changed while the request was prepared: it runs again locking first. */
class Raced extends Error {}

/** What an invoice adds to its customer's risk (customer-risk.ts): its total less its paid receipts, nothing once paid. */
function invoiceRisk(total: number, pagada: boolean, receipts: readonly Row[], decimals: number): number {
  if (pagada) return 0;
  const paid = receipts.filter((receipt) => receipt.pagado === true).reduce((sum, receipt) => sum.plus(dec(Number(receipt.importe))), dec(0));
  return roundNumber(dec(total).minus(paid), decimals);
}

/**
 * Marks every receipt of an invoice paid or unpaid (`pagarFactura<Cliente|Proveedor>/{id}`),
 * recording a payment movement per receipt that changes; the invoice's `pagada`/`vencida` follow.
 * Already in the requested state: no change.
 *
 * Prepared from one read with no lock (the invoice, its receipts, its customer), then written:
 * - on PostgreSQL and MariaDB, for one receipt, in one batch that carries the COMMIT
 *   (docs/performance.md, "Committing with the batch"): the risk, the invoice's flags and its
 *   receipt, each failing its statement unless the row is still as read, the entry (failing where
 *   the year no longer takes it) with its lines, the movement and the events;
 * - otherwise, or when that batch failed, in two batches: under the customer's, the invoice's and
 *   the receipts' locks (each change only where the row is still as read) and the year's entry
 *   counter, the risk, the flags, the receipts and the entries' headers; then the entries' lines,
 *   the movements and the events.
 * A row found changed, or a request with `If-Match`, takes the path that locks first.
 */
export async function payInvoice(ctx: AppContext, type: DocumentType, id: FieldValue, request: PaymentRequest): Promise<PaymentAnswer> {
  const ref = await loadReference(ctx);
  if (hasPrecondition(type.header, id)) return payInvoiceLocked(ctx, ref, type, id, request);
  const db = ctx.database.kysely;
  const found = await invoiceWithReceipts(db, type.side, { table: type.header.table, key: type.key, fields: type.header.fieldNames }, Number(id));
  if (!found) throw new AppError('record-not-found');
  const invoice = rowReader(type.header)(found.invoice);
  if (Boolean(invoice.pagada) === request.pagada) return { ok: 'no-changes', data: visible(type.header, invoice) };
  if (request.codpago && !ref.finance.paymentMethods.has(request.codpago) && !(await paymentMethodExists(db, request.codpago))) throw validationError({ codpago: 'not-found' });
  const { settings, today } = ref;
  const total = Number(invoice.total ?? 0);
  const plan = planReceiptPayments(type.side, { total, nick: invoice.nick }, found.receipts, request.pagada, today, settings.decimals, request.fechapago ?? null, request.codpago ?? null);
  if (!plan.changes.length) return payInvoiceLocked(ctx, ref, type, id, request);
  const after = found.receipts.map((receipt) => ({ ...receipt, ...(plan.changes.find((change) => change.receipt.idrecibo === receipt.idrecibo)?.values ?? {}) }));
  const riskDelta = type.side === 'sales'
    ? roundNumber(dec(invoiceRisk(total, plan.state.pagada, after, settings.decimals)).minus(invoiceRisk(total, Boolean(invoice.pagada), found.receipts, settings.decimals)), settings.decimals)
    : 0;
  const makers = await Promise.all(plan.changes.map(async (change) => (await ctx.hooks.run(paymentPreparing, {
    side: type.side, payment: change.payment, receipt: change.receipt, invoice, subject: found.subject, idempresa: Number(invoice.idempresa), decimals: settings.decimals,
  }))[0]));
  /**
   * The invoice's `pagada`/`vencida`, only where it is still as read (`pagada`, `total`): the row
   * skipped otherwise (its affected rows tell), or, committed with the batch, the statement failing.
   */
  const flagsUpdate = (trx: DbExecutor, failWhenChanged: boolean) => {
    const { dialect } = ctx.database;
    const still = { pagada: dialect.boolean(Boolean(invoice.pagada)), total };
    const update = trx.updateTable(type.header.table).where(type.key, '=', Number(id));
    const vencida = dialect.boolean(plan.state.vencida);
    if (failWhenChanged) return update.set({ pagada: guardedValue(dialect.boolean(plan.state.pagada), sql`pagada = ${still.pagada} AND total = ${still.total}`), vencida });
    return update.set({ pagada: dialect.boolean(plan.state.pagada), vencida }).where('pagada', '=', still.pagada).where('total', '=', still.total);
  };
  const write = (guarded: boolean) => inTransaction(ctx.database, async (trx): Promise<PaymentAnswer> => {
    const { dialect, engine } = ctx.database;
    const batch = new StatementBatch(trx, engine);
    const writing: PaymentInWriting = { db: trx, batch };
    const parts = makers.map((make) => make?.());
    if (guarded && commitTail(trx) && plan.changes.length === 1 && parts.every((part) => !part || part.atOnce())) {
      // One round trip (docs/performance.md, "Committing with the batch"): the customer's risk, the
      // invoice and its receipt (each failing its statement unless still as read), the entry with
      // its lines, the movement, the events and the COMMIT. A failure: the rounds below say why.
      if (riskDelta) batch.add(addToRiskStatement(trx, String(invoice.codcliente), riskDelta, settings.decimals));
      batch.add(flagsUpdate(trx, true));
      for (const statement of receiptUpdates(trx, dialect, type.side, plan.changes, true)) batch.add(statement);
      const idasiento = parts[0]?.writeAtOnce(writing) ?? null;
      const movements = ctx.store.insertStatement(paymentModelOf(type.side), [{ ...plan.changes[0]!.payment, idasiento } as Values], trx);
      for (const statement of movements.statements) batch.add(statement);
      await publish(trx, ctx, ...paymentEvents(type, id, receiptsAfter(plan.changes), request.pagada, plan.changes.length));
      queueEventsInto(trx, (statement) => void batch.add(statement));
      batch.commit();
      try {
        await batch.flush();
      } catch (error) {
        if (isRetryable(error)) throw error;
        throw new GuardFailed('a payment with its commit failed', { cause: error });
      }
      return { ok: 'record-updated', data: visible(type.header, { ...invoice, pagada: plan.state.pagada, vencida: plan.state.vencida }) };
    }
    // 1. The customer, the invoice and its receipts (each only if still as read), then each movement's entry header.
    if (riskDelta) batch.add(addToRiskStatement(trx, String(invoice.codcliente), riskDelta, settings.decimals));
    const flags = batch.add(flagsUpdate(trx, false));
    const receipts = receiptUpdates(trx, dialect, type.side, plan.changes).map((statement) => batch.add(statement));
    for (const part of parts) part?.lockAndWrite(writing);
    await batch.flush();
    const changed = [flags, ...receipts].map(async (result) => Number((await result).numAffectedRows ?? 0));
    if ((await Promise.all(changed)).some((rows) => rows !== 1)) throw new Raced();
    for (const part of parts) await part?.afterLocks(writing);
    // 2. The entries' lines, the movements with their entries, and the events.
    for (const part of parts) part?.write(writing);
    const movements = ctx.store.insertStatement(paymentModelOf(type.side), plan.changes.map((change, index) => ({ ...change.payment, idasiento: parts[index]?.idasiento ?? null }) as Values), trx);
    const inserted = movements.statements.map((statement) => batch.add(statement));
    await publish(trx, ctx, ...paymentEvents(type, id, receiptsAfter(plan.changes), request.pagada, plan.changes.length));
    queueEventsInto(trx, (statement) => void batch.add(statement));
    await batch.flush();
    const ids = movements.ids(await Promise.all(inserted));
    for (const [index, part] of parts.entries()) await part?.finish(writing, ids[index]!);
    const warnings = warningsOf(trx);
    return { ok: 'record-updated', data: visible(type.header, { ...invoice, pagada: plan.state.pagada, vencida: plan.state.vencida }), ...(warnings.length ? { warnings } : {}) };
  });
  try {
    try {
      return await write(ctx.database.engine !== 'sqlite');
    } catch (error) {
      if (!(error instanceof GuardFailed)) throw error;
      return await write(false);
    }
  } catch (error) {
    if (error instanceof Raced) return payInvoiceLocked(ctx, ref, type, id, request);
    throw error;
  }
}

/** The receipts a plan changes, as they are after it (the `receipt.paid` events' payloads). */
function receiptsAfter(changes: readonly ReceiptChange[]): Row[] {
  return changes.map((change) => ({ ...change.receipt, ...change.values }));
}

/**
 * The same, locking the invoice (after its customer) before reading it, a statement at a time: for
 * a request with `If-Match` (checked under the lock), and when the invoice changed while the
 * request was prepared.
 */
async function payInvoiceLocked(ctx: AppContext, ref: DocumentReference, type: DocumentType, id: FieldValue, request: PaymentRequest): Promise<PaymentAnswer> {
  const { settings, today } = ref;
  return inTransaction(ctx.database, async (trx) => {
    const lock = await lockDocument(trx, ctx.database.dialect, type, id);
    if (!lock) throw new AppError('record-not-found');
    const invoice = (await headerOf(trx, type, id))!;
    if (Boolean(invoice.pagada) === request.pagada) return { ok: 'no-changes', data: visible(type.header, invoice) };
    if (request.codpago && !(await paymentMethodExists(trx, request.codpago))) throw validationError({ codpago: 'not-found' });
    // Paying changes this invoice's receipts only: its risk before, so that only the difference is stored.
    const before = lock.customer ? await documentRisk(trx, ctx.database.dialect, type, Number(id)) : 0;
    const changed = await payInvoiceReceipts(
      { db: trx, dialect: ctx.database.dialect, type, invoice, decimals: settings.decimals, today, hooks: ctx.hooks },
      request.pagada,
      request.fechapago ?? null,
      request.codpago ?? null,
    );
    await settleCustomerRisk(trx, ctx.database.dialect, settings.decimals, lock.customer, undefined, { type, id: Number(id), before });
    await publish(trx, ctx, ...paymentEvents(type, id, changed, request.pagada, changed.length));
    const warnings = warningsOf(trx);
    return { ok: 'record-updated', data: visible(type.header, (await headerOf(trx, type, id))!), ...(warnings.length ? { warnings } : {}) };
  });
}
