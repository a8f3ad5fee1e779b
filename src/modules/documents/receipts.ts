import type { Decimal } from 'decimal.js';
import type { DbExecutor } from '../../db/database.ts';
import { dec, roundNumber } from '../../models/round.ts';
import type { DocumentType } from './document-types.ts';
import { dbBoolean } from '../../db/row-codec.ts';

/** Dates of the business day, from the app clock (tests move it). */
export interface Today {
  date: string;
  time: string;
}

export function todayOf(ms: number): Today {
  const iso = new Date(ms).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19) };
}

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

interface ReceiptContext {
  db: DbExecutor;
  type: DocumentType;
  invoice: Record<string, unknown>;
  decimals: number;
  today: Today;
}

async function receiptsOf({ db, type, invoice }: ReceiptContext) {
  return db.selectFrom(type.receipt!.table).selectAll().where('idfactura', '=', invoice[type.key]).orderBy('numero', 'asc').orderBy('idrecibo', 'asc').execute();
}

/** A payment movement: +importe when a receipt becomes paid, -importe when it stops being paid. */
async function recordPayment(c: ReceiptContext, receipt: Record<string, unknown>, importe: number, fecha: string | null, codpago: unknown): Promise<void> {
  await c.db.insertInto(c.type.payment!.table).values({
    idrecibo: receipt.idrecibo,
    importe,
    fecha: fecha ?? c.today.date,
    hora: c.today.time,
    codpago: codpago ?? null,
    nick: c.invoice.nick ?? null,
    ...(c.type.side === 'sales' ? { gastos: Number(receipt.gastos ?? 0) } : {}),
  }).execute();
}

/**
 * Brings the receipts in line with the invoice total (ReceiptGenerator, update mode): the first
 * unpaid receipt absorbs the difference, or a new receipt is created for it; then the invoice's
 * `pagada`/`vencida` are recomputed. Returns the payments recorded (a receipt born paid).
 */
export async function syncReceipts(c: ReceiptContext): Promise<number> {
  const { db, type, invoice, decimals } = c;
  const receipts = await receiptsOf(c);
  const outstanding = roundNumber(dec(Number(invoice.total)).minus(receipts.reduce<Decimal>((sum, r) => sum.plus(dec(Number(r.importe))), dec(0))), decimals);
  let payments = 0;
  if (outstanding !== 0) {
    const unpaid = receipts.find((r) => !dbBoolean(r.pagado));
    if (unpaid) {
      await db.updateTable(type.receipt!.table)
        .set({ importe: roundNumber(dec(Number(unpaid.importe)).plus(dec(outstanding)), decimals), coddivisa: invoice.coddivisa })
        .where('idrecibo', '=', unpaid.idrecibo).execute();
    } else {
      payments += await createReceipt(c, outstanding, receipts.reduce((max, r) => Math.max(max, Number(r.numero ?? 0)), 0) + 1);
    }
  }
  await refreshInvoiceFlags(c);
  return payments;
}

async function createReceipt(c: ReceiptContext, importe: number, numero: number): Promise<number> {
  const { db, type, invoice } = c;
  const method = invoice.codpago
    ? await db.selectFrom('formaspago').select(['pagado', 'plazovencimiento', 'tipovencimiento']).where('codpago', '=', invoice.codpago).executeTakeFirst()
    : undefined;
  const fecha = String(invoice.fecha);
  let vencimiento = addTerm(fecha, Number(method?.plazovencimiento ?? 0), String(method?.tipovencimiento ?? 'days'));
  if (type.side === 'sales') {
    const customer = await db.selectFrom('clientes').select('diaspago').where('codcliente', '=', invoice.codcliente).executeTakeFirst();
    vencimiento = applyPaymentDays(vencimiento, (customer?.diaspago as string | null) ?? null);
  }
  const paid = dbBoolean(method?.pagado);
  const values = {
    [type.subject]: invoice[type.subject],
    coddivisa: invoice.coddivisa,
    codigofactura: invoice.codigo,
    codpago: invoice.codpago,
    fecha,
    fechapago: paid ? fecha : null,
    idempresa: invoice.idempresa,
    idfactura: invoice[type.key],
    importe,
    nick: invoice.nick ?? null,
    numero,
    pagado: paid ? 1 : 0,
    vencido: 0,
    vencimiento,
  };
  await db.insertInto(type.receipt!.table).values(values).execute();
  if (!paid) return 0;
  const receipt = await db.selectFrom(type.receipt!.table).selectAll().where('idfactura', '=', invoice[type.key]).where('numero', '=', numero).executeTakeFirstOrThrow();
  await recordPayment(c, receipt, importe, fecha, invoice.codpago);
  return 1;
}

/**
 * Marks every receipt of the invoice paid (with the given payment date and method, else the
 * receipt's own) or unpaid, recording a payment movement for each receipt that changes.
 * Returns the receipts that changed.
 */
export async function setReceiptsPaid(c: ReceiptContext, paid: boolean, fechapago?: string | null, codpago?: string | null): Promise<Array<Record<string, unknown>>> {
  const changed: Array<Record<string, unknown>> = [];
  for (const receipt of await receiptsOf(c)) {
    if (dbBoolean(receipt.pagado) === paid) continue;
    const date = paid ? (fechapago ?? (receipt.fechapago as string | null) ?? c.today.date) : null;
    const method = paid ? (codpago ?? receipt.codpago) : receipt.codpago;
    // Only a receipt that really changes state records a payment (a concurrent request may have
    // changed it first).
    const { numUpdatedRows } = await c.db.updateTable(c.type.receipt!.table)
      .set({ pagado: paid ? 1 : 0, fechapago: date, codpago: method, vencido: 0 })
      .where('idrecibo', '=', receipt.idrecibo).where('pagado', '=', paid ? 0 : 1).executeTakeFirst();
    if (!Number(numUpdatedRows)) continue;
    const importe = Number(receipt.importe);
    await recordPayment(c, receipt, paid ? importe : -importe, date ?? c.today.date, method);
    changed.push({ ...receipt, pagado: paid, fechapago: date, codpago: method });
  }
  await refreshInvoiceFlags(c);
  return changed;
}

/** `pagada` and `vencida` of an invoice follow its receipts (ReceiptGenerator::update). */
export async function refreshInvoiceFlags(c: ReceiptContext): Promise<void> {
  const { db, type, invoice, decimals, today } = c;
  const receipts = await receiptsOf(c);
  const total = Number(invoice.total ?? 0);
  const paidSum = receipts.filter((r) => dbBoolean(r.pagado)).reduce<Decimal>((sum, r) => sum.plus(dec(Number(r.importe))), dec(0));
  // An invoice without receipts (a zero total) is not paid: there is nothing it was paid with.
  const pagada = receipts.length > 0 && (roundNumber(dec(total).minus(paidSum), decimals) === 0 || (total > 0 && paidSum.greaterThanOrEqualTo(total)));
  let vencida = false;
  for (const receipt of receipts) {
    const overdue = !dbBoolean(receipt.pagado) && receipt.vencimiento !== null && String(receipt.vencimiento) < today.date;
    vencida ||= overdue;
    if (overdue !== dbBoolean(receipt.vencido)) {
      await db.updateTable(type.receipt!.table).set({ vencido: overdue ? 1 : 0 }).where('idrecibo', '=', receipt.idrecibo).execute();
    }
  }
  await db.updateTable(type.header.table).set({ pagada: pagada ? 1 : 0, vencida: vencida ? 1 : 0 }).where(type.key, '=', invoice[type.key]).execute();
}
