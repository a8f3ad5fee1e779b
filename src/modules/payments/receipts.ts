import { insertRows } from '../../db/insert-shapes.ts';
import type { Decimal } from 'decimal.js';
import { sql, type RawBuilder } from 'kysely';
import type { BusinessDay } from '../../clock.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { insertedId } from '../../db/inserted-id.ts';
import { dbBoolean, rowReader } from '../../db/row-codec.ts';
import { hookPoint, type Hooks } from '../../hooks.ts';
import type { Model } from '../../models/define-model.ts';
import { dec, roundNumber } from '../../models/round.ts';
import { paymentDaysOf } from '../customers/index.ts';
import { paymentTermsOf, type PaymentTerms } from '../finance/index.ts';
import { customerPaymentModel, supplierPaymentModel } from './payment-models.ts';
import { customerReceiptModel, supplierReceiptModel } from './receipt-models.ts';

/**
 * Receipts of invoices and the payments recorded against them (ReceiptGenerator and the payment
 * models of the reference). The documents module calls these inside its transactions with what
 * they need to know of an invoice; the receipts and payments tables are this module's, but for a
 * payment's `idasiento`, which the posting module writes (through `paymentRecorded`). Each call
 * answers the invoice's payment state (`pagada`, `vencida`) for the caller to store.
 */
export type InvoiceSide = 'sales' | 'purchase';

/** What receipts need to know of an invoice. */
export interface InvoiceForReceipts {
  side: InvoiceSide;
  idfactura: number;
  codigo: string;
  total: number;
  fecha: string;
  codpago: string | null;
  coddivisa: string;
  idempresa: number;
  /** The customer's or supplier's code. */
  subject: string;
  nick: string | null;
  /** A new invoice: it has no receipts yet (spares reading them). */
  fresh?: boolean;
  /** The payment method's terms and the customer's payment days, when the caller has them at hand. */
  terms?: PaymentTerms;
  paymentDays?: string | null;
}

export interface ReceiptTerms {
  decimals: number;
  today: BusinessDay;
  /** The app's hook points: payments recorded and removed are announced through them. */
  hooks: Hooks;
}

export interface InvoicePaymentState {
  pagada: boolean;
  vencida: boolean;
}

type Row = Record<string, unknown>;

/** A payment movement just written (its row, with `idpago`), in the transaction that wrote it. */
export interface RecordedPayment {
  db: DbExecutor;
  side: InvoiceSide;
  payment: Row;
  receipt: Row;
  /** The company of the invoice paid. */
  idempresa: number;
  /** The installation's decimals for amounts. */
  decimals: number;
  /** The company bank account the money moved through, when the caller knows it (a remittance, a statement): else the payment method's. */
  codcuenta?: string;
}

/**
 * Runs after every payment movement the receipts record (a receipt paid or unpaid, or born paid),
 * in the same transaction: how the posting module books it.
 */
export const paymentRecorded = hookPoint<RecordedPayment>('payments.recorded');

/** Payment movements about to be deleted with their receipts (their rows as stored). */
export interface RemovedPayments {
  db: DbExecutor;
  side: InvoiceSide;
  payments: Row[];
}

/** Runs before payment movements are deleted with their receipts, in that transaction; a handler may refuse (AppError). */
export const paymentsRemoving = hookPoint<RemovedPayments>('payments.removing');

const TABLES: Record<InvoiceSide, { receipt: Model; payment: Model; subject: string }> = {
  sales: { receipt: customerReceiptModel, payment: customerPaymentModel, subject: 'codcliente' },
  purchase: { receipt: supplierReceiptModel, payment: supplierPaymentModel, subject: 'codproveedor' },
};

function addTerm(date: string, amount: number, unit: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (unit === 'weeks') d.setUTCDate(d.getUTCDate() + 7 * amount);
  else if (unit === 'months') d.setUTCMonth(d.getUTCMonth() + amount);
  else if (unit === 'years') d.setUTCFullYear(d.getUTCFullYear() + amount);
  else d.setUTCDate(d.getUTCDate() + amount);
  return d.toISOString().slice(0, 10);
}

/**
 * A customer's payment days (`diaspago`, e.g. "1,15"): the earliest of the 30 days from `date`
 * whose day of month is one of them; a day beyond a month's length means its last day.
 */
export function applyPaymentDays(date: string, diaspago: string | null): string {
  const days = (diaspago ?? '').split(',').map((d) => Number(d.trim())).filter((d) => Number.isInteger(d) && d >= 1 && d <= 31);
  if (!days.length) return date;
  const start = new Date(`${date}T00:00:00Z`);
  for (let offset = 0; offset < 30; offset++) {
    const d = new Date(start);
    d.setUTCDate(start.getUTCDate() + offset);
    const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    if (days.some((day) => Math.min(day, lastDay) === d.getUTCDate())) return d.toISOString().slice(0, 10);
  }
  return date;
}

interface Call {
  db: DbExecutor;
  dialect: SqlDialect;
  invoice: InvoiceForReceipts;
  terms: ReceiptTerms;
}

async function receiptsOf({ db, invoice }: Call): Promise<Row[]> {
  return db.selectFrom(TABLES[invoice.side].receipt.table).selectAll().where('idfactura', '=', invoice.idfactura)
    .orderBy('numero', 'asc').orderBy('idrecibo', 'asc').execute();
}

/** A payment movement: +importe when a receipt becomes paid, -importe when it stops being paid. */
async function recordPayment(c: Call, receipt: Row, importe: number, fecha: string | null, codpago: unknown): Promise<void> {
  await insertPayment(c.db, c.dialect, c.terms, c.invoice.side, receipt, {
    importe, fecha: fecha ?? c.terms.today.date, codpago: codpago ?? null, nick: c.invoice.nick, idempresa: c.invoice.idempresa,
  });
}

/**
 * Writes a payment movement of `receipt` (its fees copied on the customer side) and announces it
 * (`paymentRecorded`), in the caller's transaction.
 */
export async function insertPayment(
  db: DbExecutor, dialect: SqlDialect, terms: ReceiptTerms, side: InvoiceSide, receipt: Row,
  movement: { importe: number; fecha: string; codpago: unknown; nick: unknown; idempresa: number; gastosdevolucion?: number; codcuenta?: string },
): Promise<void> {
  const payment: Row = {
    idrecibo: receipt.idrecibo,
    importe: movement.importe,
    fecha: movement.fecha,
    hora: terms.today.time,
    codpago: movement.codpago ?? null,
    nick: movement.nick ?? null,
    ...(side === 'sales' ? { gastos: Number(receipt.gastos ?? 0), ...(movement.gastosdevolucion ? { gastosdevolucion: Math.abs(movement.gastosdevolucion) } : {}) } : {}),
  };
  payment.idpago = await insertedId(dialect.engine, db.insertInto(TABLES[side].payment.table).values(payment), 'idpago');
  await terms.hooks.run(paymentRecorded, { db, side, payment, receipt, idempresa: movement.idempresa, decimals: terms.decimals, ...(movement.codcuenta ? { codcuenta: movement.codcuenta } : {}) });
}

/**
 * Brings the receipts in line with the invoice total (ReceiptGenerator, update mode): the first
 * unpaid receipt absorbs the difference, or a new receipt is created for it. Returns the payments
 * recorded (a receipt born paid) and the invoice's payment state.
 */
export async function syncReceipts(db: DbExecutor, dialect: SqlDialect, invoice: InvoiceForReceipts, terms: ReceiptTerms): Promise<{ payments: number; state: InvoicePaymentState }> {
  const c: Call = { db, dialect, invoice, terms };
  const receipts = invoice.fresh ? [] : await receiptsOf(c);
  const outstanding = roundNumber(dec(invoice.total).minus(receipts.reduce<Decimal>((sum, r) => sum.plus(dec(Number(r.importe))), dec(0))), terms.decimals);
  let payments = 0;
  if (outstanding !== 0) {
    const unpaid = receipts.find((r) => !dbBoolean(r.pagado));
    if (unpaid) {
      const importe = roundNumber(dec(Number(unpaid.importe)).plus(dec(outstanding)), terms.decimals);
      await db.updateTable(TABLES[invoice.side].receipt.table).set({ importe, coddivisa: invoice.coddivisa }).where('idrecibo', '=', unpaid.idrecibo as number).execute();
      unpaid.importe = importe;
    } else {
      const created = await createReceipt(c, outstanding, receipts.reduce((max, r) => Math.max(max, Number(r.numero ?? 0)), 0) + 1);
      receipts.push(created.receipt);
      payments += created.paid ? 1 : 0;
    }
  }
  return { payments, state: await settleFlags(c, receipts) };
}

async function createReceipt(c: Call, importe: number, numero: number): Promise<{ receipt: Row; paid: boolean }> {
  const { db, invoice } = c;
  const method = invoice.terms ?? (invoice.codpago ? await paymentTermsOf(db, invoice.codpago) : undefined);
  const paymentDays = invoice.side === 'sales' ? (invoice.paymentDays !== undefined ? invoice.paymentDays : await paymentDaysOf(db, invoice.subject)) : null;
  const { values, paid } = newReceipt(c.dialect, invoice, importe, numero, method, paymentDays);
  const table = TABLES[invoice.side].receipt.table;
  await db.insertInto(table).values(values).execute();
  // A new invoice's first receipt is its only one (settleFlags finds it by the invoice); any other
  // is read back for its id (the payment movement, the overdue flag).
  if (!paid && invoice.fresh) return { receipt: { ...values, pagado: false, vencido: false }, paid };
  const receipt = await db.selectFrom(table).selectAll().where('idfactura', '=', invoice.idfactura).where('numero', '=', numero)
    .orderBy('idrecibo', 'desc').executeTakeFirstOrThrow();
  if (paid) await recordPayment(c, receipt, importe, invoice.fecha, invoice.codpago);
  return { receipt, paid };
}

/**
 * A new receipt of an invoice, as stored (ReceiptGenerator): due after the payment method's term
 * from the invoice's date, on the customer's payment days; born paid when the method says so.
 * Pure: the caller has the method's terms and the customer's payment days at hand.
 */
export function newReceipt(dialect: SqlDialect, invoice: InvoiceForReceipts, importe: number, numero: number, method: PaymentTerms | undefined, paymentDays: string | null): { values: Row; paid: boolean } {
  let vencimiento = addTerm(invoice.fecha, method?.plazovencimiento ?? 0, method?.tipovencimiento ?? 'days');
  if (invoice.side === 'sales') vencimiento = applyPaymentDays(vencimiento, paymentDays);
  const paid = method?.pagado ?? false;
  const values: Row = {
    [TABLES[invoice.side].subject]: invoice.subject,
    coddivisa: invoice.coddivisa,
    codigofactura: invoice.codigo,
    codpago: invoice.codpago,
    fecha: invoice.fecha,
    fechapago: paid ? invoice.fecha : null,
    idempresa: invoice.idempresa,
    idfactura: invoice.idfactura,
    importe,
    nick: invoice.nick,
    numero,
    pagado: dialect.boolean(paid),
    vencido: dialect.boolean(false),
    vencimiento,
  };
  return { values, paid };
}

/** The statement inserting a receipt built by `newReceipt`. */
export function insertReceiptStatement(db: DbExecutor, side: InvoiceSide, values: Row) {
  return insertRows(db, TABLES[side].receipt.table, [values]);
}

/**
 * Marks every receipt of the invoice paid (with the given payment date and method, else the
 * receipt's own) or unpaid, recording a payment movement for each receipt that changes.
 * Returns the receipts that changed and the invoice's payment state.
 */
export async function setReceiptsPaid(
  db: DbExecutor, dialect: SqlDialect, invoice: InvoiceForReceipts, terms: ReceiptTerms, paid: boolean, fechapago?: string | null, codpago?: string | null,
): Promise<{ changed: Row[]; state: InvoicePaymentState }> {
  const c: Call = { db, dialect, invoice, terms };
  const changed: Row[] = [];
  const receipts = await receiptsOf(c);
  for (const receipt of receipts) {
    if (dbBoolean(receipt.pagado) === paid) continue;
    const fecha = paid ? (fechapago ?? (receipt.fechapago as string | null) ?? terms.today.date) : terms.today.date;
    if (await setReceiptPaid(db, dialect, terms, invoice.side, receipt, { paid, fecha, codpago: paid ? (codpago ?? null) : null, nick: invoice.nick, idempresa: invoice.idempresa })) {
      changed.push({ ...receipt });
    }
  }
  return { changed, state: await settleFlags(c, receipts) };
}

/** One receipt paid or un-paid on a date: how a bank's collection, return or statement line moves it. */
export interface ReceiptPaymentChange {
  paid: boolean;
  /** The payment's date, or the un-payment's (a return's). */
  fecha: string;
  /** The method paid with (default the receipt's own). */
  codpago?: string | null;
  nick: unknown;
  idempresa: number;
  /** A customer receipt returned by the bank: the bank's fee for the return, posted as an expense. */
  gastosdevolucion?: number;
  /** The company bank account the money moved through (see RecordedPayment). */
  codcuenta?: string;
}

/**
 * Pays or un-pays one receipt (`receipt` as read, updated in place) and records its payment
 * movement, only if the receipt still is in the other state (a concurrent request may have changed
 * it first): true when it changed. The caller holds its invoice's lock and settles the invoice.
 */
export async function setReceiptPaid(db: DbExecutor, dialect: SqlDialect, terms: ReceiptTerms, side: InvoiceSide, receipt: Row, change: ReceiptPaymentChange): Promise<boolean> {
  const { paid } = change;
  const method = change.codpago ?? receipt.codpago ?? null;
  const fechapago = paid ? change.fecha : null;
  const { numUpdatedRows } = await db.updateTable(TABLES[side].receipt.table)
    .set({ pagado: dialect.boolean(paid), fechapago, codpago: method, vencido: dialect.boolean(false) })
    .where('idrecibo', '=', receipt.idrecibo as number).where('pagado', '=', dialect.boolean(!paid)).executeTakeFirst();
  if (!Number(numUpdatedRows)) return false;
  const importe = Number(receipt.importe);
  await insertPayment(db, dialect, terms, side, receipt, {
    importe: paid ? importe : -importe, fecha: change.fecha, codpago: method, nick: change.nick, idempresa: change.idempresa, gastosdevolucion: change.gastosdevolucion, codcuenta: change.codcuenta,
  });
  Object.assign(receipt, { pagado: paid, fechapago, codpago: method, vencido: false });
  return true;
}

/** The invoice's payment state as its receipts give it now (overdue receipts marked on the way). */
export async function invoicePaymentState(db: DbExecutor, dialect: SqlDialect, invoice: InvoiceForReceipts, terms: ReceiptTerms): Promise<InvoicePaymentState> {
  const c: Call = { db, dialect, invoice, terms };
  return settleFlags(c, await receiptsOf(c));
}

/**
 * The invoice's payment state from its receipts (ReceiptGenerator::update), marking overdue the
 * unpaid receipts past their due date on the way.
 */
async function settleFlags(c: Call, receipts: Row[]): Promise<InvoicePaymentState> {
  const { db, dialect, invoice, terms } = c;
  const paidSum = receipts.filter((r) => dbBoolean(r.pagado)).reduce<Decimal>((sum, r) => sum.plus(dec(Number(r.importe))), dec(0));
  // An invoice without receipts (a zero total) is not paid: there is nothing it was paid with.
  const pagada = receipts.length > 0 && (roundNumber(dec(invoice.total).minus(paidSum), terms.decimals) === 0 || (invoice.total > 0 && paidSum.greaterThanOrEqualTo(invoice.total)));
  let vencida = false;
  for (const receipt of receipts) {
    const overdue = !dbBoolean(receipt.pagado) && receipt.vencimiento !== null && String(receipt.vencimiento) < terms.today.date;
    vencida ||= overdue;
    if (overdue !== dbBoolean(receipt.vencido)) {
      const update = db.updateTable(TABLES[invoice.side].receipt.table).set({ vencido: dialect.boolean(overdue) });
      // A receipt created by this call has no id read back: it is the invoice's only one.
      await (receipt.idrecibo === undefined ? update.where('idfactura', '=', invoice.idfactura) : update.where('idrecibo', '=', receipt.idrecibo as number)).execute();
    }
  }
  return { pagada, vencida };
}

/** The receipts of an invoice by number, typed as the model declares them (readers: export). */
export async function invoiceReceipts(db: DbExecutor, side: InvoiceSide, idfactura: number): Promise<Row[]> {
  const { receipt } = TABLES[side];
  const rows = await db.selectFrom(receipt.table).selectAll().where('idfactura', '=', idfactura).orderBy('numero', 'asc').orderBy('idrecibo', 'asc').execute();
  return rows.map(rowReader(receipt));
}

/** Deletes receipts (by id) with their payments, announcing the payments first (paymentsRemoving). */
async function removeReceipts(db: DbExecutor, hooks: Hooks, side: InvoiceSide, ids: number[]): Promise<void> {
  if (!ids.length) return;
  const { receipt, payment } = TABLES[side];
  const payments = await db.selectFrom(payment.table).selectAll().where('idrecibo', 'in', ids).execute();
  if (payments.length) {
    await hooks.run(paymentsRemoving, { db, side, payments });
    await db.deleteFrom(payment.table).where('idrecibo', 'in', ids).execute();
  }
  await db.deleteFrom(receipt.table).where('idrecibo', 'in', ids).execute();
}

/** Deletes the receipts of an invoice and their payments (the invoice goes). */
export async function deleteReceipts(db: DbExecutor, hooks: Hooks, side: InvoiceSide, idfactura: number): Promise<void> {
  const ids = (await db.selectFrom(TABLES[side].receipt.table).select('idrecibo').where('idfactura', '=', idfactura).execute()).map((r) => Number(r.idrecibo));
  await removeReceipts(db, hooks, side, ids);
}

/** Deletes the unpaid receipts of an invoice (a new payment method regenerates them with its terms). */
export async function deleteUnpaidReceipts(db: DbExecutor, dialect: SqlDialect, hooks: Hooks, side: InvoiceSide, idfactura: number): Promise<void> {
  const ids = (await db.selectFrom(TABLES[side].receipt.table).select('idrecibo').where('idfactura', '=', idfactura).where('pagado', '=', dialect.boolean(false)).execute())
    .map((r) => Number(r.idrecibo));
  await removeReceipts(db, hooks, side, ids);
}

/** Marks overdue every unpaid receipt past its due date (the calendar moved); returns how many. */
export async function markOverdueReceipts(db: DbExecutor, dialect: SqlDialect, side: InvoiceSide, today: string): Promise<number> {
  const marked = await db.updateTable(TABLES[side].receipt.table).set({ vencido: dialect.boolean(true) })
    .where('pagado', '=', dialect.boolean(false)).where('vencido', '=', dialect.boolean(false)).where('vencimiento', '<', today).executeTakeFirst();
  return Number(marked.numUpdatedRows);
}

/** The ids of invoices with an overdue unpaid receipt, as a subquery to use in an invoice update. */
export function overdueInvoiceIds(dialect: SqlDialect, side: InvoiceSide): RawBuilder<unknown> {
  return sql`(SELECT r.idfactura FROM ${sql.table(TABLES[side].receipt.table)} r WHERE r.vencido = ${dialect.boolean(true)} AND r.pagado = ${dialect.boolean(false)} AND r.idfactura IS NOT NULL)`;
}
