import { sql, type RawBuilder } from 'kysely';
import { guardedValue } from '../../db/guard-sql.ts';
import type { Decimal } from 'decimal.js';
import type { BusinessDay } from '../../clock.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { dbBoolean, rowReader } from '../../db/row-codec.ts';
import { proveedorModel } from '../contacts/index.ts';
import { customerModel } from '../customers/index.ts';
import type { Statement, StatementBatch } from '../../db/statement-batch.ts';
import { hookPoint } from '../../hooks.ts';
import { dec, roundNumber } from '../../models/round.ts';
import { customerPaymentModel, supplierPaymentModel } from './payment-models.ts';
import { customerReceiptModel, supplierReceiptModel } from './receipt-models.ts';
import type { InvoicePaymentState, InvoiceSide } from './receipts.ts';

type Row = Record<string, unknown>;

const TABLES = {
  sales: { receipt: customerReceiptModel.table },
  purchase: { receipt: supplierReceiptModel.table },
} as const;

/** One receipt that a payment request changes: its new values and the payment movement it records. */
export interface ReceiptChange {
  receipt: Row;
  /** What the receipt becomes (`pagado`, `fechapago`, `codpago`, `vencido`). */
  values: { pagado: boolean; fechapago: string | null; codpago: unknown; vencido: boolean };
  /** The movement: +importe paid, -importe un-paid. */
  payment: { idrecibo: number; importe: number; fecha: string; hora: string; codpago: unknown; nick: unknown; gastos?: number };
}

/**
 * What paying (or un-paying) every receipt of an invoice does, computed from its receipts as read
 * (`setReceiptsPaid`'s rules, pure): the receipts that change, each with its movement, and the
 * invoice's payment state afterwards. A writer that applies it under its locks makes each change
 * conditional on the receipt being as read (`receiptUpdates`), and falls back to
 * `setReceiptsPaid` when one is not.
 */
export function planReceiptPayments(
  side: InvoiceSide, invoice: { total: number; nick: unknown }, receipts: readonly Row[], paid: boolean, today: BusinessDay, decimals: number,
  fechapago?: string | null, codpago?: string | null,
): { changes: ReceiptChange[]; state: InvoicePaymentState } {
  const changes: ReceiptChange[] = [];
  const after = receipts.map((receipt) => ({ ...receipt }));
  for (const receipt of after) {
    if (dbBoolean(receipt.pagado) === paid) continue;
    const date = paid ? (fechapago ?? (receipt.fechapago as string | null) ?? today.date) : null;
    const method = paid ? (codpago ?? receipt.codpago) : receipt.codpago;
    const importe = Number(receipt.importe);
    changes.push({
      receipt: { ...receipt },
      values: { pagado: paid, fechapago: date, codpago: method, vencido: false },
      payment: {
        idrecibo: Number(receipt.idrecibo), importe: paid ? importe : -importe, fecha: date ?? today.date, hora: today.time, codpago: method ?? null, nick: invoice.nick ?? null,
        ...(side === 'sales' ? { gastos: Number(receipt.gastos ?? 0) } : {}),
      },
    });
    Object.assign(receipt, { pagado: paid, fechapago: date, codpago: method, vencido: false });
  }
  const paidSum = after.filter((r) => dbBoolean(r.pagado)).reduce<Decimal>((sum, r) => sum.plus(dec(Number(r.importe))), dec(0));
  const pagada = after.length > 0 && (roundNumber(dec(invoice.total).minus(paidSum), decimals) === 0 || (invoice.total > 0 && paidSum.greaterThanOrEqualTo(invoice.total)));
  const vencida = after.some((r) => !dbBoolean(r.pagado) && r.vencimiento !== null && r.vencimiento !== undefined && String(r.vencimiento) < today.date);
  return { changes, state: { pagada, vencida } };
}

/**
 * The receipts' updates of a plan, each only where the receipt is still as read (paid state and
 * amount): the writer compares the rows changed with the plan's.
 */
export function receiptUpdates(db: DbExecutor, dialect: SqlDialect, side: InvoiceSide, changes: readonly ReceiptChange[], failWhenChanged = false): Statement<unknown>[] {
  return changes.map(({ receipt, values }) => {
    const pagado = dialect.boolean(values.pagado);
    const update = db.updateTable(TABLES[side].receipt).where('idrecibo', '=', Number(receipt.idrecibo));
    const rest = { fechapago: values.fechapago, codpago: values.codpago as string | null, vencido: dialect.boolean(values.vencido) };
    // Committed with its batch (pay-invoice.ts): a receipt no longer as read fails the statement (the first assignment, read before any is made).
    if (failWhenChanged) return update.set({ pagado: guardedValue(pagado, sql`pagado = ${dialect.boolean(!values.pagado)} AND importe = ${Number(receipt.importe)}`), ...rest });
    return update.set({ pagado, ...rest }).where('pagado', '=', dialect.boolean(!values.pagado)).where('importe', '=', Number(receipt.importe));
  });
}


/** A payment movement about to be written (a `pagar*` request's), as a module prepares to take part in it. */
export interface PreparingPayment {
  side: InvoiceSide;
  /** The movement, its receipt and the invoice it pays (`codigo`, `codserie`, the subject's name and code). */
  payment: ReceiptChange['payment'];
  receipt: Row;
  invoice: Row;
  /** The customer or supplier row. */
  subject: Row;
  idempresa: number;
  decimals: number;
}

/** A payment movement as its writer completes it. */
export interface PaymentInWriting {
  db: DbExecutor;
  batch: StatementBatch;
}

/** A module's part in writing a payment movement (posting: its entry), in the writer's two rounds. */
export interface PaymentPart {
  /** Round 1, after the receipts' updates: statements that take its lock (the year's entry counter) and write what needs only it. */
  lockAndWrite(payment: PaymentInWriting): void;
  /** After round 1: what its statements answered; may refuse (an AppError). */
  afterLocks(payment: PaymentInWriting): Promise<void>;
  /** Round 2, with the movement's insert: the rest (an entry's lines and balances). */
  write(payment: PaymentInWriting): void;
  /** The entry the movement is posted with, once known. */
  readonly idasiento: number | null;
  /** After round 2: what is done a statement at a time (a warning that it was not posted). */
  finish(payment: PaymentInWriting, idpago: number): Promise<void>;
  /**
   * For a payment committed with its batch (pay-invoice.ts, docs/performance.md): whether the part
   * can write all of it in one round, its refusals failing a statement instead of being read (no
   * warning to give, every sub-account known).
   */
  atOnce(): boolean;
  /** Writes all of it in one round (`atOnce`), and answers the movement's `idasiento` as SQL (null: nothing posted). */
  writeAtOnce(payment: PaymentInWriting): RawBuilder<number> | null;
}

/**
 * Asked, with no lock held, for each payment movement a `pagar*` request will record: a module
 * answers how it takes part in writing it (posting: the movement's entry, or the warning that it
 * cannot be posted). Movements recorded one statement at a time announce `paymentRecorded` instead.
 */
export const paymentPreparing = hookPoint<PreparingPayment, () => PaymentPart>('payments.preparing');

/**
 * An invoice (of the caller's `table` and `key`) with its receipts and its customer's or
 * supplier's row, in one read: what a `pagar*` request prepares from. Undefined for no invoice.
 */
export async function invoiceWithReceipts(
  db: DbExecutor, side: InvoiceSide, invoice: { table: string; key: string; fields: readonly string[] }, id: number,
): Promise<{ invoice: Row; receipts: Row[]; subject: Row } | undefined> {
  const receiptModel = side === 'sales' ? customerReceiptModel : supplierReceiptModel;
  const subjectModel = side === 'sales' ? customerModel : proveedorModel;
  const subjectKey = side === 'sales' ? 'codcliente' : 'codproveedor';
  const rows = await db.selectFrom(`${invoice.table} as f`)
    .leftJoin(`${receiptModel.table} as r`, 'r.idfactura', `f.${invoice.key}`)
    .leftJoin(`${subjectModel.table} as s`, `s.${subjectKey}`, `f.${subjectKey}`)
    .select([
      ...invoice.fields.map((name) => `f.${name} as f_${name}`),
      ...receiptModel.fieldNames.map((name) => `r.${name} as r_${name}`),
      ...subjectModel.fieldNames.map((name) => `s.${name} as s_${name}`),
    ])
    .where(`f.${invoice.key}`, '=', id).orderBy('r.numero', 'asc').orderBy('r.idrecibo', 'asc').execute() as Row[];
  if (!rows.length) return undefined;
  const part = (row: Row, prefix: string) => Object.fromEntries(Object.entries(row).filter(([name]) => name.startsWith(prefix)).map(([name, value]) => [name.slice(prefix.length), value]));
  return {
    invoice: part(rows[0]!, 'f_'),
    receipts: rows.filter((row) => row.r_idrecibo !== null && row.r_idrecibo !== undefined).map((row) => rowReader(receiptModel)(part(row, 'r_'))),
    subject: part(rows[0]!, 's_'),
  };
}

/** The payments table's model of a side (its writer inserts movements through the store's `insertStatement`). */
export const paymentModelOf = (side: InvoiceSide) => (side === 'sales' ? customerPaymentModel : supplierPaymentModel);
