import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import { documentEvent } from './document-events.ts';
import { lockNumbering, releaseNumber } from './numbering.ts';
import type { FieldValue } from '../../models/fields.ts';
import { moveStock } from '../catalogue/index.ts';
import { deleteReceipts } from '../payments/index.ts';
import { loadReference, statusOf, type DocumentReference } from './document-reference.ts';
import { hasRefunds, headerOf, linesOf, lockDocument, visible, type Row } from './document-repository.ts';
import { settleCustomerRisk, type LockedCustomer } from './customer-risk.ts';
import { applyLineStockMode, childrenOf } from './document-status.ts';
import { DOCUMENT_TYPES, documentType, type DocumentType } from './document-types.ts';
import { effectOf } from './insert-document.ts';
import { documentRemoving, sealOf } from './document-hooks.ts';

/**
 * Deletes a document (TransformerDocument::delete, InvoiceTrait::delete): refused for a sealed
 * document (document-hooks.ts), while documents generated from it exist, for a locked invoice, or
 * an invoice with refunds; its lines' stock is given back, its receipts and payments go, and the
 * documents it was generated from get their served quantities and previous status back. One
 * transaction; `document.deleted` after commit.
 */
export async function deleteDocument(ctx: AppContext, type: DocumentType, id: FieldValue): Promise<Row> {
  const ref = await loadReference(ctx);
  return inTransaction(ctx.database, async (db) => {
    const { removed, customer } = await removeDocument(ctx, db, ref, type, id);
    await settleCustomerRisk(db, ctx.database.dialect, ref.settings.decimals, customer);
    const doc = visible(type.header, removed);
    await publish(db, ctx, documentEvent(type, 'document.deleted', id, { type: type.name, doc }));
    return doc;
  });
}

async function removeDocument(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, id: FieldValue): Promise<{ removed: Row; customer?: LockedCustomer }> {
  const { dialect } = ctx.database;
  const lock = await lockDocument(db, dialect, type, id);
  if (!lock) throw new AppError('record-not-found');
  const doc = (await headerOf(db, type, id))!;
  const seal = await sealOf(ctx, db, type, id);
  if (seal) throw new AppError(seal.remove);
  if ((await childrenOf(db, type, id)).length) throw new AppError('document-has-children');
  if (type.invoice) {
    if (!doc.editable) throw new AppError('document-not-editable');
    if (await hasRefunds(db, type, id)) throw new AppError('document-has-children', { reason: 'refunds' });
  }
  await ctx.hooks.run(documentRemoving, { ctx, db, ref, type, id: Number(id), doc });
  if (type.invoice) {
    await deleteReceipts(db, ctx.hooks, type.side, Number(id));
  }
  const lines = await linesOf(db, type, id);
  await moveStock(db, dialect, ...lines.map((line) => ({
    codalmacen: String(doc.codalmacen), referencia: (line.referencia as string | null) ?? null, before: effectOf(line), after: undefined, line: `idlinea ${line.idlinea}`,
  })));
  await db.deleteFrom(type.line.table).where(type.key, '=', id as number).execute();
  const links = await db.selectFrom('doctransformations').selectAll().where('model2', '=', type.name).where('iddoc2', '=', id as number).execute();
  await db.deleteFrom('doctransformations').where('model2', '=', type.name).where('iddoc2', '=', id as number).execute();
  await db.deleteFrom(type.header.table).where(type.key, '=', id as number).execute();
  // Its number goes back to the sequence (a gap to fill, where the sequence fills them).
  await lockNumbering(db, dialect, type, { codserie: String(doc.codserie), idempresa: Number(doc.idempresa), codejercicio: String(doc.codejercicio) });
  await releaseNumber(db, dialect, type, { codserie: String(doc.codserie), idempresa: Number(doc.idempresa), codejercicio: String(doc.codejercicio), numero: Number(doc.numero) });
  await ctx.store.deleted({ db, dialect, clock: ctx.clock, model: type.header, existing: doc });
  const parents = new Map<string, Set<number>>();
  for (const link of links) {
    // A link to a type this installation does not know (a plugin's, since removed) is left alone.
    const parentType = DOCUMENT_TYPES.find((candidate) => candidate.name === link.model1);
    if (!parentType) continue;
    const parentLine = await db.selectFrom(parentType.line.table).select(['idlinea', 'servido']).where('idlinea', '=', link.idlinea1 as number).executeTakeFirst();
    if (parentLine) {
      await db.updateTable(parentType.line.table).set({ servido: Math.max(0, Number(parentLine.servido) - Number(link.cantidad)) }).where('idlinea', '=', link.idlinea1 as number).execute();
    }
    if (!parents.has(parentType.name)) parents.set(parentType.name, new Set());
    parents.get(parentType.name)!.add(Number(link.iddoc1));
  }
  for (const [name, ids] of parents) {
    for (const parentId of ids) await restoreParentStatus(db, dialect, ref, documentType(name), parentId);
  }
  return { removed: doc, customer: lock.customer };
}

/** A parent whose child went away returns to its previous status (or its default one, if that generated). */
async function restoreParentStatus(db: DbExecutor, dialect: SqlDialect, ref: DocumentReference, type: DocumentType, id: number): Promise<void> {
  const parent = await headerOf(db, type, id);
  if (!parent) return;
  let status = parent.idestado_ant === null || parent.idestado_ant === undefined ? statusOf(ref, type) : statusOf(ref, type, parent.idestado_ant);
  if (status.generadoc) status = statusOf(ref, type);
  await db.updateTable(type.header.table).set({ idestado: status.idestado, editable: dialect.boolean(status.editable) }).where(type.key, '=', id).execute();
  await applyLineStockMode(db, dialect, type, parent, status.actualizastock);
}
