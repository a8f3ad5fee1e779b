import type { AppContext } from '../../app-context.ts';
import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { Values } from '../../models/define-model.ts';
import { AppError, validationError, fieldErrors } from '../../errors.ts';
import { documentEvent, paymentEvents } from './document-events.ts';
import { coerceValue, parseDate, parseTime, type InputSource } from '../../models/coerce.ts';
import { headerOf, linesOf, visible, type DocumentResult, type Row } from './document-repository.ts';
import { loadReference, statusOf } from './document-reference.ts';
import { subjectOf } from './subject.ts';
import { changeStatus, copyHeader, copyLine } from './document-status.ts';
import { documentType } from './document-types.ts';
import type { PartMaker } from './document-parts.ts';
import { exerciseOfDate, prepareComputed } from './prepare-document.ts';
import { productsForLines } from '../catalogue/index.ts';
import { writeDocument } from './write-document.ts';

const INVOICE = documentType('FacturaCliente');

export interface RefundRequest {
  idfactura: number;
  fecha: string;
  hora?: string;
  codserie?: string;
  nick?: string | null;
  observaciones?: string | null;
  idestado?: number;
  /** idlinea -> quantity to refund; empty means every line in full. */
  quantities: Map<number, number>;
}

/** The fields of `crearFacturaRectificativaCliente` (facturascripts-api.md 5). */
export function readRefundRequest(body: unknown, source: InputSource): RefundRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AppError('no-data');
  const errors = fieldErrors();
  const fields = INVOICE.header.fields;
  const request: Partial<RefundRequest> = { quantities: new Map() };
  for (const [name, raw] of Object.entries(body as Record<string, unknown>)) {
    const refund = /^refund_(\d+)$/.exec(name);
    if (refund) {
      const qty = coerceValue({ type: 'double', nullable: true }, raw, source);
      if (!qty.ok) errors[name] = qty.reason;
      else if (typeof qty.value === 'number' && qty.value < 0) errors[name] = 'negative';
      else if (typeof qty.value === 'number' && qty.value > 0) request.quantities!.set(Number(refund[1]), qty.value);
      continue;
    }
    if (name === 'fecha' || name === 'hora') {
      const value = typeof raw === 'string' ? (name === 'fecha' ? parseDate(raw.trim()) : parseTime(raw.trim())) : undefined;
      if (!value) throw new AppError('invalid-date', { field: name });
      request[name] = value;
      continue;
    }
    const field = name === 'idfactura' ? fields.idfactura : ['codserie', 'nick', 'observaciones', 'idestado'].includes(name) ? fields[name] : undefined;
    if (!field) {
      errors[name] = 'unknown-field';
      continue;
    }
    const coerced = coerceValue(field, raw, source);
    if (!coerced.ok) errors[name] = coerced.reason;
    else (request as Record<string, unknown>)[name] = coerced.value;
  }
  if (request.idfactura === undefined || request.idfactura === null) errors.idfactura = 'required';
  if (!request.fecha) errors.fecha = 'required';
  if (Object.keys(errors).length) throw validationError(errors);
  return request as RefundRequest;
}

/** A refund's view of its original as prepared: its header and lines, what earlier refunds took back of each line. */
async function originalOf(ctx: AppContext, idfactura: number): Promise<{ original: Row; lines: Row[]; refunded: Map<number, number> } | undefined> {
  const db = ctx.database.kysely;
  const original = await headerOf(db, INVOICE, idfactura);
  if (!original) return undefined;
  const lines = await linesOf(db, INVOICE, idfactura);
  return { original, lines, refunded: await refundedOf(db, lines) };
}

/** What earlier refunds already took back, per original line (refundedQuantity of the reference). */
async function refundedOf(db: DbExecutor, lines: Row[]): Promise<Map<number, number>> {
  const refunded = new Map<number, number>();
  const previous = await db.selectFrom(INVOICE.line.table).select(['idlinearect', 'cantidad'])
    .where('idlinearect', 'in', lines.length ? lines.map((line) => line.idlinea as number) : [-1]).execute();
  for (const row of previous) refunded.set(Number(row.idlinearect), (refunded.get(Number(row.idlinearect)) ?? 0) + Math.abs(Number(row.cantidad)));
  return refunded;
}

/** The refund raced another change of its original while it was prepared: it is prepared again. */
class OriginalChanged extends Error {}

/**
 * A rectificative (credit) customer invoice (facturascripts-model.md 3.12): the original is
 * locked (moved to its first non-editable status if still editable), the new invoice copies its
 * header, points to it (`codigorect`, `idfacturarect`) and refunds the chosen quantities (every
 * line in full by default) as negative lines linked by `idlinearect`; a paid original gives a paid
 * refund. A refund of a refund is refused.
 *
 * Written as any new document (document-parts.ts): prepared with no lock from the original as
 * read, then committed with one more part, in the lock order's `document` slot: the original's row
 * updated (its status) or locked, and what earlier refunds took back read again under that lock;
 * an original that changed meanwhile prepares the refund again.
 */
export async function refundInvoice(ctx: AppContext, request: RefundRequest): Promise<DocumentResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await refundOnce(ctx, request);
    } catch (error) {
      if (!(error instanceof OriginalChanged) || attempt >= 5) throw error;
    }
  }
}

async function refundOnce(ctx: AppContext, request: RefundRequest): Promise<DocumentResult> {
  const ref = await loadReference(ctx);
  const { today } = ref;
  const read = await originalOf(ctx, request.idfactura);
  if (!read) throw new AppError('record-not-found');
  const { original, lines, refunded } = read;
  if (original.idfacturarect !== null && original.idfacturarect !== undefined) throw new AppError('cant-refund-a-refund');
  const remaining = (line: Row) => Math.abs(Number(line.cantidad)) - (refunded.get(Number(line.idlinea)) ?? 0);
  const errors = fieldErrors();
  for (const [idlinea, qty] of request.quantities) {
    const line = lines.find((candidate) => Number(candidate.idlinea) === idlinea);
    if (!line) errors[`refund_${idlinea}`] = 'not-found';
    else if (qty > remaining(line) + 1e-9) errors[`refund_${idlinea}`] = 'out-of-range';
  }
  const toRefund = lines.filter((line) => (request.quantities.size ? request.quantities.has(Number(line.idlinea)) : remaining(line) > 0));
  if (!request.quantities.size && !toRefund.length && lines.length) errors.idfactura = 'already-refunded';
  if (Object.keys(errors).length) throw validationError(errors);

  const status = statusOf(ref, INVOICE, request.idestado);
  if (status.generadoc) throw validationError({ idestado: 'generates-document' });
  const header: Values = {
    ...copyHeader(INVOICE, original, INVOICE),
    codserie: request.codserie ?? (original.codserie as string),
    nick: request.nick ?? null,
    observaciones: request.observaciones ?? null,
    codigorect: original.codigo as string,
    idfacturarect: Number(original.idfactura),
    idestado: status.idestado,
    editable: status.editable,
  };
  const refundLines: Values[] = toRefund.map((line) => ({
    ...copyLine(INVOICE, line, INVOICE),
    cantidad: -(request.quantities.get(Number(line.idlinea)) ?? remaining(line)),
    idlinearect: Number(line.idlinea),
    actualizastock: status.actualizastock,
  }));
  const db = ctx.database.kysely;
  const subject = (await subjectOf(db, INVOICE, String(original.codcliente))) ?? {};
  const fecha = request.fecha;
  const exercise = await exerciseOfDate(ctx, Number(header.idempresa), fecha);
  Object.assign(header, { fecha, hora: request.hora ?? today.time, codejercicio: exercise.codejercicio });
  // The lines' products, by reference: their stock flags (stock comes back) and their `tipo`.
  const references = [...new Set(refundLines.map((line) => line.referencia).filter((code): code is string => typeof code === 'string' && code !== ''))];
  const products = await productsForLines(db, references);
  const productTypes = new Map([...products.values()].map((product) => [product.idproducto, product.tipo]));
  const prepared = await prepareComputed(ctx, {
    type: INVOICE, ref, subject, header, lines: refundLines, products, productTypes, exercise, pagada: Boolean(original.pagada),
  });
  // The original's status: its first non-editable one, when still editable.
  const locking = original.editable ? ref.company.statuses.find((s) => s.tipodoc === INVOICE.name && !s.editable && s.activo && !s.generadoc) : undefined;
  // Its lines keep their stock mode under that status (the usual case): the status is one update.
  const sameMode = Boolean(locking) && lines.every((line) => Number(line.actualizastock) === locking!.actualizastock);
  let updatedOriginal: Row = original;
  const originalPart: PartMaker = () => ({
    lock: 'document',
    lockAndWrite(doc) {
      const { dialect } = ctx.database;
      // Updating the row takes its lock; a row that is already as wanted is only locked.
      doc.batch.add(locking && sameMode
        ? doc.db.updateTable(INVOICE.header.table).set({ idestado: locking.idestado, idestado_ant: (original.idestado as number | null) ?? null, editable: dialect.boolean(false) })
          .where(INVOICE.key, '=', request.idfactura)
        : dialect.locking(doc.db.selectFrom(INVOICE.header.table).select(INVOICE.key).where(INVOICE.key, '=', request.idfactura)));
      for (const [name, check] of Object.entries(originalChecks(request.idfactura, lines))) doc.readAfterLocks(name, check);
      // The rare status that changes the lines' stock mode moves stock a statement at a time after the read: before the refund's
      // writes (not after them, as together would put it), and never in a transaction a failed write aborted.
      if (locking && !sameMode) doc.together = false;
    },
    async afterLocks(doc) {
      // What earlier refunds took back, and the original itself, as when prepared; else it is prepared again.
      if (!unchanged(doc.readValue, original, refunded, lines)) throw new OriginalChanged();
      if (locking && !sameMode) {
        // Its lines' stock mode changes with the status: moved a statement at a time (a rare status set).
        await changeStatus(ctx, doc.db, ref, INVOICE, request.idfactura, locking.idestado);
      }
      if (locking) updatedOriginal = { ...original, idestado: locking.idestado, idestado_ant: (original.idestado as number | null) ?? null, editable: false };
    },
  });
  return writeDocument(ctx, {
    ...prepared,
    makers: [...prepared.makers, originalPart],
    events: (doc) => [
      documentEvent(INVOICE, 'document.updated', request.idfactura, { type: INVOICE.name, doc: visible(INVOICE.header, updatedOriginal) }),
      ...(doc.payments ? paymentEvents(INVOICE, doc.id, doc.payments.paid, true, doc.payments.recorded) : []),
    ],
  });
}

/** What the refund checks of its original under its lock: its total, and what earlier refunds took back of each line. */
function originalChecks(idfactura: number, lines: Row[]): Record<string, RawBuilder<unknown>> {
  const checks: Record<string, RawBuilder<unknown>> = {
    'refund.total': sql`(SELECT f.total FROM ${sql.table(INVOICE.header.table)} f WHERE f.idfactura = ${idfactura})`,
  };
  for (const line of lines) {
    checks[`refund.line.${Number(line.idlinea)}`] = sql`(SELECT COALESCE(SUM(ABS(r.cantidad)), 0) FROM ${sql.table(INVOICE.line.table)} r WHERE r.idlinearect = ${Number(line.idlinea)})`;
  }
  return checks;
}

/** Whether the original is still as the refund was prepared from (`originalChecks` read). */
function unchanged(read: (name: string) => unknown, original: Row, refunded: Map<number, number>, lines: Row[]): boolean {
  const same = (value: unknown, expected: number) => Math.abs(Number(value ?? 0) - expected) < 1e-9;
  return same(read('refund.total'), Number(original.total ?? 0)) && lines.every((line) => same(read(`refund.line.${Number(line.idlinea)}`), refunded.get(Number(line.idlinea)) ?? 0));
}
