import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import type { Values } from '../../models/define-model.ts';
import { riskOf } from '../customers/index.ts';
import { rateFor } from '../finance/index.ts';
import type { DocumentInput } from './document-input.ts';
import { settleCustomerRisk } from './customer-risk.ts';
import { buildLines, lineDefaults } from './document-lines.ts';
import { loadReference, statusOf, type DocumentReference } from './document-reference.ts';
import { documentResult, headerOf, type DocumentResult } from './document-repository.ts';
import { documentEvent, paymentEvents } from './document-events.ts';
import type { DocumentType } from './document-types.ts';
import { insertDocument } from './insert-document.ts';
import { payInvoiceReceipts } from './invoice-receipts.ts';
import { subjectDefaults, subjectOf } from './subject.ts';

/** The company of a warehouse: from the cache, else (created a moment ago elsewhere) from the table. */
async function warehouseCompany(db: DbExecutor, ref: DocumentReference, codalmacen: string): Promise<number | null | undefined> {
  const cached = ref.company.warehouses.get(codalmacen);
  if (cached) return cached.idempresa;
  const row = await db.selectFrom('almacenes').select('idempresa').where('codalmacen', '=', codalmacen).executeTakeFirst();
  return row ? (row.idempresa === null ? null : Number(row.idempresa)) : undefined;
}

/** The conversion rate of a document's currency: from the cache, else from the table; 422 for an unknown one. */
export async function conversionRate(db: DbExecutor, ref: DocumentReference, type: DocumentType, coddivisa: string): Promise<number> {
  const cached = rateFor(ref.finance, coddivisa, type.side);
  if (cached !== undefined) return cached;
  const currency = await db.selectFrom('divisas').select(['tasaconv', 'tasaconvcompra']).where('coddivisa', '=', coddivisa).executeTakeFirst();
  if (!currency) throw validationError({ coddivisa: 'not-found' });
  return Number(type.side === 'purchase' && currency.tasaconvcompra !== null ? currency.tasaconvcompra : currency.tasaconv);
}

/**
 * Creates a business document with its lines (the `crear<Doc>` endpoints): header defaults from
 * the settings, the customer/supplier and the warehouse, then `insertDocument`. Everything or
 * nothing, and a rolled back creation consumes no number. Where the database groups commits
 * (`Database.groupCommit`: SQLite by default) and no idempotency key holds the request's
 * transaction, concurrent creations share a commit (group-commit.ts), each in its own savepoint:
 * a refused one is undone alone.
 */
export async function createDocument(ctx: AppContext, type: DocumentType, input: DocumentInput): Promise<DocumentResult> {
  const ref = await loadReference(ctx);
  const { settings, today } = ref;
  return inTransaction(ctx.database, async (trx) => {
    const subject = await subjectOf(trx, type, String(input.header[type.subject]), ctx.database.dialect);
    if (!subject) throw new AppError(type.side === 'sales' ? 'customer-not-found' : 'supplier-not-found');
    const customer = type.side === 'sales' ? { codcliente: String(subject.codcliente), ...riskOf(subject) } : undefined;
    const header: Values = { ...(await subjectDefaults(trx, ref, type, subject)), ...input.header };
    header.codserie ??= (subject.codserie as string | null) ?? settings.codserie;
    header.codalmacen ??= settings.codalmacen;
    const idempresa = await warehouseCompany(trx, ref, String(header.codalmacen));
    if (idempresa === undefined) throw new AppError('warehouse-not-found');
    header.idempresa = idempresa ?? settings.idempresa;
    header.codpago ??= (subject.codpago as string | null) ?? settings.codpago;
    header.coddivisa ??= settings.coddivisa;
    header.tasaconv = await conversionRate(trx, ref, type, String(header.coddivisa));
    const status = statusOf(ref, type, header.idestado);
    if (status.generadoc) throw validationError({ idestado: 'generates-document' });
    Object.assign(header, { idestado: status.idestado, editable: status.editable });

    const { lines, productTypes } = await buildLines(trx, ref.taxes, type, input.lines ?? [], lineDefaults(settings, status.actualizastock, subject, header));
    // Lines that name an id themselves (no reference) still need their product's type read.
    const known = lines.every((line) => line.idproducto === undefined || line.idproducto === null || productTypes.has(Number(line.idproducto)));
    const { id, payments: recorded } = await insertDocument(ctx, trx, ref, type, {
      header, lines, fecha: input.fecha ?? today.date, hora: input.hora ?? today.time, subject, ...(known ? { productTypes } : {}),
    });
    const paid = type.invoice && input.pagada
      ? await payInvoiceReceipts({ db: trx, dialect: ctx.database.dialect, type, invoice: (await headerOf(trx, type, id))!, decimals: settings.decimals, today, hooks: ctx.hooks }, true, today.date)
      : [];
    await settleCustomerRisk(trx, ctx.database.dialect, settings.decimals, customer, header, { type, id: Number(id), before: 0 });
    const payments = recorded + paid.length;
    const result = await documentResult(trx, type, id);
    await publish(trx, ctx,
      documentEvent(type, 'document.created', id, { type: type.name, doc: result.doc, lines: result.lines }),
      ...paymentEvents(type, id, paid, true, payments));
    return result;
  }, { shared: true });
}
