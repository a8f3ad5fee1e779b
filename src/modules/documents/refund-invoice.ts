import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError, fieldErrors } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import { documentEvent, paymentEvents } from './document-events.ts';
import { coerceValue, parseDate, parseTime, type InputSource } from '../../models/coerce.ts';
import { insertDocument } from './insert-document.ts';
import { documentResult, headerOf, linesOf, lockDocument, visible, type DocumentResult } from './document-repository.ts';
import { loadReference, statusOf } from './document-reference.ts';
import { subjectOf } from './subject.ts';
import { changeStatus, copyHeader, copyLine } from './document-status.ts';
import { documentType } from './document-types.ts';
import { payInvoiceReceipts } from './invoice-receipts.ts';
import { settleCustomerRisk } from './customer-risk.ts';

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

/**
 * A rectificative (credit) customer invoice (facturascripts-model.md 3.12): the original is
 * locked (moved to its first non-editable status if still editable), the new invoice copies its
 * header, points to it (`codigorect`, `idfacturarect`) and refunds the chosen quantities (every
 * line in full by default) as negative lines linked by `idlinearect`; a paid original gives a paid
 * refund. A refund of a refund is refused.
 */
export async function refundInvoice(ctx: AppContext, request: RefundRequest): Promise<DocumentResult> {
  const ref = await loadReference(ctx);
  const { settings, today } = ref;
  return inTransaction(ctx.database, async (trx) => {
    const lock = await lockDocument(trx, ctx.database.dialect, INVOICE, request.idfactura);
    if (!lock) throw new AppError('record-not-found');
    const original = (await headerOf(trx, INVOICE, request.idfactura))!;
    if (original.idfacturarect !== null && original.idfacturarect !== undefined) throw new AppError('cant-refund-a-refund');
    const lines = await linesOf(trx, INVOICE, request.idfactura);
    // What earlier refunds already took back, per original line (refundedQuantity of the reference).
    const refunded = new Map<number, number>();
    const previous = await trx.selectFrom(INVOICE.line.table).select(['idlinearect', 'cantidad'])
      .where('idlinearect', 'in', lines.length ? lines.map((line) => line.idlinea as number) : [-1]).execute();
    for (const row of previous) refunded.set(Number(row.idlinearect), (refunded.get(Number(row.idlinearect)) ?? 0) + Math.abs(Number(row.cantidad)));
    const remaining = (line: Record<string, unknown>) => Math.abs(Number(line.cantidad)) - (refunded.get(Number(line.idlinea)) ?? 0);
    const errors = fieldErrors();
    for (const [idlinea, qty] of request.quantities) {
      const line = lines.find((candidate) => Number(candidate.idlinea) === idlinea);
      if (!line) errors[`refund_${idlinea}`] = 'not-found';
      else if (qty > remaining(line) + 1e-9) errors[`refund_${idlinea}`] = 'out-of-range';
    }
    const toRefund = lines.filter((line) => (request.quantities.size ? request.quantities.has(Number(line.idlinea)) : remaining(line) > 0));
    if (!request.quantities.size && !toRefund.length && lines.length) errors.idfactura = 'already-refunded';
    if (Object.keys(errors).length) throw validationError(errors);

    if (original.editable) {
      const lock = ref.company.statuses.find((s) => s.tipodoc === INVOICE.name && !s.editable && s.activo && !s.generadoc);
      if (lock) await changeStatus(ctx, trx, ref, INVOICE, request.idfactura, lock.idestado);
    }
    const status = statusOf(ref, INVOICE, request.idestado);
    if (status.generadoc) throw validationError({ idestado: 'generates-document' });
    const header = {
      ...copyHeader(INVOICE, original, INVOICE),
      codserie: request.codserie ?? (original.codserie as string),
      nick: request.nick ?? null,
      observaciones: request.observaciones ?? null,
      codigorect: original.codigo as string,
      idfacturarect: Number(original.idfactura),
      idestado: status.idestado,
      editable: status.editable,
    };
    const refundLines = toRefund
      .map((line) => ({
        ...copyLine(INVOICE, line, INVOICE),
        cantidad: -(request.quantities.get(Number(line.idlinea)) ?? remaining(line)),
        idlinearect: Number(line.idlinea),
        actualizastock: status.actualizastock,
      }));
    const subject = (await subjectOf(trx, INVOICE, String(original.codcliente))) ?? {};
    const { id } = await insertDocument(ctx, trx, ref, INVOICE, { header, lines: refundLines, fecha: request.fecha, hora: request.hora ?? today.time, subject });
    const paid = original.pagada
      ? await payInvoiceReceipts({ db: trx, dialect: ctx.database.dialect, type: INVOICE, invoice: (await headerOf(trx, INVOICE, id))!, decimals: settings.decimals, today, hooks: ctx.hooks }, true, request.fecha)
      : [];
    const created = await documentResult(trx, INVOICE, id);
    await settleCustomerRisk(trx, ctx.database.dialect, settings.decimals, lock.customer, created.doc);
    const locked = visible(INVOICE.header, (await headerOf(trx, INVOICE, request.idfactura))!);
    await publish(trx, ctx,
      documentEvent(INVOICE, 'document.updated', request.idfactura, { type: INVOICE.name, doc: locked }),
      documentEvent(INVOICE, 'document.created', id, { type: INVOICE.name, doc: created.doc, lines: created.lines }),
      ...paymentEvents(INVOICE, id, paid, true, paid.length));
    return created;
  });
}
