import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { companyOf, companyReference } from '../company/index.ts';
import { documentIdOf, documentType, hasRefunds, headerOf, lockDocument, type Row } from '../documents/index.ts';
import { appendRecord } from './chain.ts';
import { appendEvent } from './event-log/append-event.ts';
import { EVENT_TYPES } from './event-log/event-content.ts';
import { storedSwitchOf } from './company-switch.ts';
import type { RecordMode } from './qr-url.ts';
import { anulacionRecord, type InvoiceId } from './record-content.ts';
import { registroVerifactuModel } from './record-models.ts';
import { recordsOfInvoice } from './record-reads.ts';
import { RECORDED_TYPE } from './recorded-invoices.ts';
import { territoryOf } from './registration-time.ts';

/**
 * `anularFacturaCliente/{id or code}`: the invoice should never have been issued. Its anulación is
 * chained like any record (to the record generated before it, not to the invoice's alta); the
 * invoice stays, shown as cancelled, and its number is never reused. Refused for an invoice
 * without a record, one cancelled already, and one that rectifying invoices correct. Answers the
 * invoice and the new record.
 */
export async function cancelInvoice(ctx: AppContext, idOrCode: string): Promise<{ doc: Row; registro: Row }> {
  const type = documentType(RECORDED_TYPE);
  const companies = await companyReference(ctx);
  return inTransaction(ctx.database, async (db) => {
    const id = await documentIdOf(db, type, idOrCode);
    if (id === undefined || !(await lockDocument(db, ctx.database.dialect, type, id))) throw new AppError('record-not-found');
    const invoice = (await headerOf(db, type, id))!;
    const records = await recordsOfInvoice(db, id);
    const alta = records.find((record) => record.tipo === 'alta');
    if (!alta) throw new AppError('invoice-not-recorded');
    const last = records[records.length - 1]!;
    if (last.tipo === 'anulacion') throw new AppError('invoice-already-cancelled', { idregistro: last.id });
    if (await hasRefunds(db, type, id)) throw new AppError('document-has-children', { reason: 'refunds' });

    const idempresa = Number(alta.idempresa);
    const stored = (await storedSwitchOf(db, idempresa))!;
    // A company switched off since keeps its chain: the anulación goes on in the mode of the alta.
    const company = { ...stored, modo: (stored.modo === 'off' ? alta.modo : stored.modo) as RecordMode };
    const identity: InvoiceId = { IDEmisorFactura: String(alta.nifemisor), NumSerieFactura: String(alta.numserie), FechaExpedicionFactura: String(alta.fechaexpedicion) };
    const registro = await appendRecord(ctx, db, company, {
      tipo: 'anulacion',
      idfactura: id,
      invoice: identity,
      territory: territoryOf((await companyOf(db, idempresa)) ?? {}),
      severalTaxpayers: companies.companies.size > 1,
      build: (previous, system, timestamp) => anulacionRecord(identity, previous, system, timestamp),
    });
    // A NO VERI*FACTU anulación after the company left the mode opened an operation (01) for itself: it ends with it.
    if (stored.modo === 'off' && company.modo === 'noverifactu') await appendEvent(ctx, db, idempresa, EVENT_TYPES.end);
    const doc = Object.fromEntries(type.header.visibleFields.map((name) => [name, invoice[name]]));
    return { doc, registro: (await ctx.store.get(registroVerifactuModel, registro, db))! };
  });
}
