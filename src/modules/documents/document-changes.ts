import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { conversionRate, statusFor, visible } from './create-document.ts';
import type { DocumentInput } from './document-input.ts';
import { buildLine, lineDefaults, productLine, type LineDefaults } from './document-lines.ts';
import { applyLineStockMode, changeStatus, childrenOf, type Status } from './document-status.ts';
import { DOCUMENT_TYPES, type DocumentType } from './document-types.ts';
import { exerciseFor } from './fiscal-year.ts';
import { assignNumber, checkInvoiceChronology, lockSerie } from './numbering.ts';
import { payInvoiceReceipts } from './invoice-receipts.ts';
import { deleteReceipts, deleteUnpaidReceipts } from '../payments/index.ts';
import { headerOf, linesOf, recalculate, type Row } from './recalculate.ts';
import { moveStock } from '../catalogue/index.ts';
import { lockDocument } from './document-lock.ts';
import { afterCommit } from '../../db/transaction.ts';
import type { Settings } from '../../settings.ts';

/** What a locked (non-editable) document still accepts (TransformerDocument unlocked fields). */
const UNLOCKED = new Set(['femail', 'idestado', 'idestado_ant', 'numdocs', 'pagada']);

const sameValue = (a: unknown, b: unknown) => a === b || (a !== null && b !== null && a !== undefined && String(a) === String(b));

/** What a new line of this document starts with: status stock mode, default tax, document IRPF, subject. */
export async function lineDefaultsOf(db: DbExecutor, type: DocumentType, doc: Row, settings: Settings): Promise<LineDefaults> {
  const status = await statusFor(db, type, doc.idestado);
  const subject = (await db.selectFrom(type.subjectTable).selectAll().where(type.subject, '=', doc[type.subject]).executeTakeFirst()) ?? {};
  return lineDefaults(settings, status.actualizastock, subject, doc);
}

const effectOf = (line: Row) => ({ mode: Number(line.actualizastock), cantidad: Number(line.cantidad), servido: Number(line.servido) });

/** When a line's reference changes, the product's description, tax, cost and price come with it. */
export async function productPartIfChanged(db: DbExecutor, type: DocumentType, current: Row, changes: Values, defaults: LineDefaults): Promise<Values> {
  if (changes.referencia === undefined || changes.referencia === current.referencia) return {};
  if (typeof changes.referencia !== 'string' || changes.referencia === '') return { idproducto: null };
  return (await productLine(db, type, changes.referencia, defaults)) ?? { idproducto: null };
}

/** Stock of a changed line: the old reference gives its effect back, the new one takes the new effect. */
export async function moveLineStock(ctx: AppContext, db: DbExecutor, doc: Row, before: Row, after: Row, line: string): Promise<void> {
  const warehouse = String(doc.codalmacen);
  const [oldRef, newRef] = [(before.referencia as string | null) ?? null, (after.referencia as string | null) ?? null];
  if (oldRef === newRef) {
    await moveStock(db, ctx.database.dialect, { codalmacen: warehouse, referencia: newRef, before: effectOf(before), after: effectOf(after), line });
    return;
  }
  await moveStock(db, ctx.database.dialect, { codalmacen: warehouse, referencia: oldRef, before: effectOf(before), after: undefined, line });
  await moveStock(db, ctx.database.dialect, { codalmacen: warehouse, referencia: newRef, before: undefined, after: effectOf(after), line });
}

/**
 * Full line synchronisation (ApiEditDocument): an element with the `idlinea` of an existing line
 * updates it (fields not sent keep their values), any other element is a new line, and existing
 * lines missing from the list are deleted. Stock follows every change.
 */
async function syncLines(ctx: AppContext, db: DbExecutor, type: DocumentType, doc: Row, inputs: Values[], settings: Settings): Promise<void> {
  const existing = new Map((await linesOf(db, type, doc[type.key])).map((line) => [Number(line.idlinea), line]));
  const kept = new Set<number>();
  const defaults = await lineDefaultsOf(db, type, doc, settings);
  for (const [index, input] of inputs.entries()) {
    const current = input.idlinea === undefined || input.idlinea === null ? undefined : existing.get(Number(input.idlinea));
    if (current && !kept.has(Number(current.idlinea))) {
      kept.add(Number(current.idlinea));
      const { idlinea: _id, ...changes } = input;
      const update = { ...(await productPartIfChanged(db, type, current, changes, defaults)), ...changes };
      if (Object.keys(update).length) await ctx.store.update(type.line, current.idlinea as number, update, db);
      const after = (await linesOf(db, type, doc[type.key])).find((line) => line.idlinea === current.idlinea)!;
      await moveLineStock(ctx, db, doc, current, after, `lineas[${index}]`);
    } else {
      const line = await buildLine(db, type, input, defaults, index);
      const { record } = await ctx.store.create(type.line, { ...line, [type.key]: doc[type.key] as number }, db);
      await moveStock(db, ctx.database.dialect, { codalmacen: String(doc.codalmacen), referencia: (record.referencia as string | null) ?? null, before: undefined, after: effectOf(record), line: `lineas[${index}]` });
    }
  }
  for (const [id, line] of existing) {
    if (kept.has(id)) continue;
    await moveStock(db, ctx.database.dialect, { codalmacen: String(doc.codalmacen), referencia: (line.referencia as string | null) ?? null, before: effectOf(line), after: undefined, line: `idlinea ${id}` });
    await db.deleteFrom(type.line.table).where('idlinea', '=', id).execute();
  }
}

/**
 * Changes a document: the editing endpoints (`editar<Doc>/{id}`, `mode` 'edit') and generic
 * writes to a header (`mode` 'generic'). A non-editable document takes only the unlocked fields
 * (unless the change moves it to an editable status); the subject, company and warehouse never
 * change; date and serie changes renumber; `idestado` applies the status; lines are synchronised
 * when sent; totals, receipts and stock follow; `pagada` pays or unpays the receipts. Runs in the
 * caller's transaction; its events are emitted once that transaction commits.
 */
export async function changeDocument(ctx: AppContext, db: DbExecutor, type: DocumentType, id: unknown, input: DocumentInput, mode: 'edit' | 'generic', settings: Settings): Promise<Row> {
  if (!(await lockDocument(db, ctx.database.dialect, type, id))) throw new AppError('record-not-found');
  const doc = (await headerOf(db, type, id))!;
  // Announced first, before what the change caused (approval, generated document, payments).
  let saved: Row = doc;
  afterCommit(db, () => ctx.events.emit('document.updated', { type: type.name, doc: visible(type.header, saved) }));
  const header = { ...input.header };
  const requestedStatus = header.idestado !== undefined && header.idestado !== null && !sameValue(header.idestado, doc.idestado) ? Number(header.idestado) : undefined;
  delete header.idestado;
  delete header.idestado_ant;
  const target: Status | undefined = requestedStatus === undefined ? undefined : await statusFor(db, type, requestedStatus);

  const changedFields = Object.keys(header).filter((name) => !sameValue(header[name], doc[name]));
  const locked = !doc.editable && !(target?.editable ?? false);
  if (locked && (input.lines !== undefined || changedFields.some((name) => !UNLOCKED.has(name)) || input.fecha || input.hora)) {
    throw new AppError('document-not-editable');
  }
  const fixed: Array<[string, 'cannot-change-subject' | 'cannot-change-company' | 'cannot-change-warehouse']> = [
    [type.subject, 'cannot-change-subject'], ['idempresa', 'cannot-change-company'], ['codalmacen', 'cannot-change-warehouse'],
  ];
  for (const [field, code] of fixed) if (changedFields.includes(field)) throw new AppError(code);

  // Moving back to an editable status first, so that the rest of the change applies unlocked.
  if (target?.editable && !doc.editable) await applyStatus(ctx, db, type, id, target, settings);

  const values: Values = {};
  for (const name of changedFields) values[name] = header[name];
  if (values.coddivisa !== undefined) values.tasaconv = await conversionRate(db, type, String(values.coddivisa));
  const fecha = input.fecha ?? (doc.fecha as string);
  const hora = input.hora ?? (doc.hora as string);
  const codserie = (values.codserie as string | undefined) ?? (doc.codserie as string);
  if (input.fecha !== undefined || input.hora !== undefined || values.codserie !== undefined) {
    await lockSerie(db, ctx.database.dialect, codserie);
    const codejercicio = await exerciseFor(db, ctx.database.dialect, Number(doc.idempresa), fecha);
    Object.assign(values, { fecha, hora });
    if (codejercicio !== doc.codejercicio || codserie !== doc.codserie) {
      const assigned = await assignNumber(db, ctx.database.dialect, type, { codserie, idempresa: Number(doc.idempresa), codejercicio, fecha, hora });
      Object.assign(values, { codejercicio, numero: String(assigned.numero), codigo: assigned.codigo });
    }
    await checkInvoiceChronology(db, ctx.database.dialect, type, {
      idempresa: Number(doc.idempresa), codserie, codejercicio: String(values.codejercicio ?? doc.codejercicio),
      numero: Number(values.numero ?? doc.numero), fecha, id: Number(id),
    });
  }
  const pagada = values.pagada ?? input.pagada;
  delete values.pagada;
  if (type.invoice && values.codpago !== undefined) {
    // A new payment method replaces the unpaid receipts (they are regenerated with its terms).
    await deleteUnpaidReceipts(db, ctx.database.dialect, type.side, Number(id));
  }
  if (Object.keys(values).length) await ctx.store.update(type.header, id as number, values, db);
  if (input.lines !== undefined) await syncLines(ctx, db, type, (await headerOf(db, type, id))!, input.lines, settings);

  // A document that was locked and stays locked keeps its totals: later changes of taxes, regimes
  // or settings never rewrite an issued invoice.
  let payments = locked ? 0 : await recalculate(ctx, db, type, id, settings);
  if (target && (!target.editable || doc.editable)) await applyStatus(ctx, db, type, id, target, settings);
  if (type.invoice && pagada !== undefined && pagada !== null && (mode === 'generic' || pagada === true)) {
    const changed = await payInvoiceReceipts({ db, dialect: ctx.database.dialect, type, invoice: (await headerOf(db, type, id))!, decimals: settings.decimals, today: ctx.clock.today() }, pagada === true);
    payments += changed.length;
    afterCommit(db, () => {
      for (const receipt of changed) ctx.events.emit('receipt.paid', { type: type.name, receipt, paid: pagada === true });
    });
  }
  if (payments) afterCommit(db, () => ctx.events.emit('payment.recorded', { type: type.name, idfactura: id, count: payments }));
  saved = (await headerOf(db, type, id))!;
  return saved;
}

async function applyStatus(ctx: AppContext, db: DbExecutor, type: DocumentType, id: unknown, status: Status, settings: Settings): Promise<void> {
  const { generated } = await changeStatus(ctx, db, type, id, status.idestado, settings);
  if (status.generadoc || !status.editable) {
    const doc = (await headerOf(db, type, id))!;
    afterCommit(db, () => ctx.events.emit('document.approved', { type: type.name, doc: visible(type.header, doc), idestado: status.idestado }));
  }
  if (generated) {
    const child = (await headerOf(db, generated.type, generated.id))!;
    const lines = (await linesOf(db, generated.type, generated.id)).map((line) => visible(generated.type.line, line));
    afterCommit(db, () => ctx.events.emit('document.created', { type: generated.type.name, doc: visible(generated.type.header, child), lines }));
  }
}

/** A line change through the generic resources: allowed while the document is editable (locked for the change). */
export async function editableDocumentOf(db: DbExecutor, dialect: SqlDialect, type: DocumentType, id: unknown): Promise<Row> {
  if (!(await lockDocument(db, dialect, type, id))) throw validationError({ [type.key]: 'not-found' });
  const doc = (await headerOf(db, type, id))!;
  if (!doc.editable) throw new AppError('document-not-editable');
  return doc;
}

/**
 * Deletes a document (TransformerDocument::delete, InvoiceTrait::delete): refused while documents
 * generated from it exist, for a locked invoice, or an invoice with refunds; its lines' stock is
 * given back, its receipts and payments go, and the documents it was generated from get their
 * served quantities and previous status back.
 */
export async function deleteDocument(ctx: AppContext, db: DbExecutor, type: DocumentType, id: unknown): Promise<Row> {
  if (!(await lockDocument(db, ctx.database.dialect, type, id))) throw new AppError('record-not-found');
  const doc = (await headerOf(db, type, id))!;
  if ((await childrenOf(db, type, id)).length) throw new AppError('document-has-children');
  if (type.invoice) {
    if (!doc.editable) throw new AppError('document-not-editable');
    const refunds = await db.selectFrom(type.header.table).select(type.key).where('idfacturarect', '=', id).limit(1).execute();
    if (refunds.length) throw new AppError('document-has-children', { reason: 'refunds' });
    await deleteReceipts(db, type.side, Number(id));
  }
  for (const line of await linesOf(db, type, id)) {
    await moveStock(db, ctx.database.dialect, { codalmacen: String(doc.codalmacen), referencia: (line.referencia as string | null) ?? null, before: effectOf(line), after: undefined, line: `idlinea ${line.idlinea}` });
  }
  await db.deleteFrom(type.line.table).where(type.key, '=', id).execute();
  const links = await db.selectFrom('doctransformations').selectAll().where('model2', '=', type.name).where('iddoc2', '=', id).execute();
  await db.deleteFrom('doctransformations').where('model2', '=', type.name).where('iddoc2', '=', id).execute();
  await db.deleteFrom(type.header.table).where(type.key, '=', id).execute();
  const parents = new Map<string, Set<number>>();
  for (const link of links) {
    const parentType = DOCUMENT_TYPES.find((candidate) => candidate.name === link.model1);
    if (!parentType) continue;
    const parentLine = await db.selectFrom(parentType.line.table).select(['idlinea', 'servido']).where('idlinea', '=', link.idlinea1).executeTakeFirst();
    if (parentLine) {
      await db.updateTable(parentType.line.table).set({ servido: Math.max(0, Number(parentLine.servido) - Number(link.cantidad)) }).where('idlinea', '=', link.idlinea1).execute();
    }
    if (!parents.has(parentType.name)) parents.set(parentType.name, new Set());
    parents.get(parentType.name)!.add(Number(link.iddoc1));
  }
  for (const [name, ids] of parents) {
    const parentType = DOCUMENT_TYPES.find((candidate) => candidate.name === name)!;
    for (const parentId of ids) await restoreParentStatus(db, ctx.database.dialect, parentType, parentId);
  }
  return doc;
}

/** A parent whose child went away returns to its previous status (or its default one, if that generated). */
async function restoreParentStatus(db: DbExecutor, dialect: SqlDialect, type: DocumentType, id: number): Promise<void> {
  const parent = await headerOf(db, type, id);
  if (!parent) return;
  let status = parent.idestado_ant === null || parent.idestado_ant === undefined ? await statusFor(db, type) : await statusFor(db, type, parent.idestado_ant);
  if (status.generadoc) status = await statusFor(db, type);
  await db.updateTable(type.header.table).set({ idestado: status.idestado, editable: status.editable ? 1 : 0 }).where(type.key, '=', id).execute();
  await applyLineStockMode(db, dialect, type, parent, status.actualizastock);
}
