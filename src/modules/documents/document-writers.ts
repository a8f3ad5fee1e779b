import type { AppContext, RecordWriter } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import { documentEvent } from './document-events.ts';
import { readInput } from '../../models/read-input.ts';
import { moveStock } from '../catalogue/index.ts';
import { updateDocument } from './change-document.ts';
import { createDocument } from './create-document.ts';
import { deleteDocument } from './delete-document.ts';
import { readDocumentInput } from './document-input.ts';
import { buildLines } from './document-lines.ts';
import { loadReference, type DocumentReference } from './document-reference.ts';
import { headerOf, visible, type Row } from './document-repository.ts';
import { documentChanged } from './document-hooks.ts';
import { DOCUMENT_TYPES, type DocumentType } from './document-types.ts';
import { effectOf } from './insert-document.ts';
import { editableDocumentOf, lineAfter, lineDefaultsOf, lineStockMoves, productPartIfChanged } from './line-changes.ts';
import { recalculate } from './recalculate.ts';
import { settleCustomerRisk, type LockedCustomer } from './customer-risk.ts';
import { customerReceiptModel, supplierReceiptModel } from '../payments/index.ts';
import { receiptWriter } from './receipt-changes.ts';

/** Generic writes to a document header behave as the document endpoints do. */
function headerWriter(ctx: AppContext, type: DocumentType): RecordWriter {
  return {
    async create(body, source) {
      return (await createDocument(ctx, type, readDocumentInput(type, body, source, false))).doc;
    },
    update: (id, body, source) => updateDocument(ctx, type, id, readDocumentInput(type, body, source, true)),
    remove: (id) => deleteDocument(ctx, type, id),
  };
}

/**
 * Generic writes to a line: only while its document is editable; the line gets the defaults a
 * new line gets, stock follows, and the document's totals are recalculated in the same transaction.
 */
function lineWriter(ctx: AppContext, type: DocumentType): RecordWriter {
  /**
   * Runs one line write in a transaction with the reference read before it; `recalc` recalculates
   * the document and its customer's risk (the customer its lock holds), and the document is
   * announced as updated once the transaction has committed.
   */
  const write = async <T>(fn: (trx: DbExecutor, ref: DocumentReference, recalc: (doc: Row, customer?: LockedCustomer) => Promise<void>) => Promise<T>): Promise<T> => {
    const ref = await loadReference(ctx);
    return inTransaction(ctx.database, (trx) => fn(trx, ref, async (doc, customer) => {
      const id = Number(doc[type.key]);
      await recalculate(ctx, trx, ref, type, id);
      const after = (await headerOf(trx, type, id))!;
      await ctx.hooks.run(documentChanged, { ctx, db: trx, ref, type, id, before: doc, after, linesChanged: true });
      const updated = visible(type.header, after);
      await settleCustomerRisk(trx, ctx.database.dialect, ref.settings.decimals, customer, updated);
      await publish(trx, ctx, documentEvent(type, 'document.updated', id, { type: type.name, doc: updated }));
    }));
  };
  const { dialect } = ctx.database;
  return {
    async create(body, source) {
      const values = readInput(type.line, body, source, 'create');
      return write(async (trx, ref, recalc) => {
        const { doc, customer } = await editableDocumentOf(ctx, trx, type, values[type.key]);
        const { [type.key]: docId, ...lineInput } = values;
        const { lines: [line] } = await buildLines(trx, ref.taxes, type, [lineInput], await lineDefaultsOf(trx, ref, type, doc));
        // Stock before the line (lock order: its insert shares the product's row).
        const prepared = await ctx.store.prepareNew(type.line, { ...line, [type.key]: docId }, trx);
        await moveStock(trx, dialect, { codalmacen: String(doc.codalmacen), referencia: (prepared.referencia as string | null) ?? null, before: undefined, after: effectOf(prepared), line: 'linea' });
        const { record } = await ctx.store.create(type.line, prepared, trx);
        await recalc(doc, customer);
        return (await ctx.store.get(type.line, record.idlinea as number, trx))!;
      });
    },
    async update(id, body, source) {
      const values = readInput(type.line, body, source, 'update', id);
      return write(async (trx, ref, recalc) => {
        const found = await ctx.store.get(type.line, id, trx, 'all');
        if (!found) throw new AppError('record-not-found');
        if (values[type.key] !== undefined && values[type.key] !== found[type.key]) throw new AppError('validation-failed', { fields: { [type.key]: 'read-only' } });
        const { doc, customer } = await editableDocumentOf(ctx, trx, type, found[type.key]);
        // Read again under the document's lock: a concurrent change may have moved it meanwhile.
        const before = await ctx.store.get(type.line, id, trx, 'all');
        if (!before) throw new AppError('record-not-found');
        const defaults = await lineDefaultsOf(trx, ref, type, doc);
        const update = { ...(await productPartIfChanged(trx, ref, type, before, values, defaults)), ...values };
        // Stock before the line (lock order: its update may share another product's row).
        await moveStock(trx, dialect, ...lineStockMoves(doc, before, lineAfter(type, before, update), `idlinea ${id}`));
        await ctx.store.update(type.line, id, update, trx);
        await recalc(doc, customer);
        return (await ctx.store.get(type.line, id, trx))!;
      });
    },
    async remove(id) {
      return write(async (trx, _ref, recalc) => {
        const found = await ctx.store.get(type.line, id, trx, 'all');
        if (!found) throw new AppError('record-not-found');
        const { doc, customer } = await editableDocumentOf(ctx, trx, type, found[type.key]);
        const line = await ctx.store.get(type.line, id, trx, 'all');
        if (!line) throw new AppError('record-not-found');
        await moveStock(trx, dialect, { codalmacen: String(doc.codalmacen), referencia: (line.referencia as string | null) ?? null, before: effectOf(line), after: undefined, line: `idlinea ${id}` });
        await trx.deleteFrom(type.line.table).where('idlinea', '=', id as number).execute();
        await recalc(doc, customer);
        return visible(type.line, line);
      });
    },
  };
}

/** Documents, their lines and their invoices' receipts are written through the document rules on every path. */
export function registerDocumentWriters(ctx: AppContext): void {
  for (const type of DOCUMENT_TYPES) {
    ctx.writers.set(type.header, headerWriter(ctx, type));
    ctx.writers.set(type.line, lineWriter(ctx, type));
  }
  ctx.writers.set(customerReceiptModel, receiptWriter(ctx, 'sales'));
  ctx.writers.set(supplierReceiptModel, receiptWriter(ctx, 'purchase'));
}
