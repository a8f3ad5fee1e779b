import type { AppContext } from '../../app-context.ts';
import { inTransaction, warningsOf, type Warning } from '../../db/transaction.ts';
import { AppError, validationError, fieldErrors } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import { paymentEvents } from './document-events.ts';
import { coerceValue, parseDate, type InputSource } from '../../models/coerce.ts';
import type { FieldValue } from '../../models/fields.ts';
import type { DocumentType } from './document-types.ts';
import { payInvoiceReceipts } from './invoice-receipts.ts';
import { paymentMethodExists } from '../finance/index.ts';
import { headerOf, lockDocument, visible } from './document-repository.ts';
import { loadReference } from './document-reference.ts';
import { documentRisk, settleCustomerRisk } from './customer-risk.ts';

export interface PaymentRequest {
  pagada: boolean;
  fechapago?: string;
  codpago?: string;
}

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

/**
 * Marks every receipt of an invoice paid or unpaid (`pagarFactura<Cliente|Proveedor>/{id}`),
 * recording a payment movement per receipt that changes; the invoice's `pagada`/`vencida` follow.
 * Already in the requested state: no change.
 */
export async function payInvoice(ctx: AppContext, type: DocumentType, id: FieldValue, request: PaymentRequest): Promise<{ ok: string; data: Record<string, unknown>; warnings?: Warning[] }> {
  const { settings, today } = await loadReference(ctx);
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
