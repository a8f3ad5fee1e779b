import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import { documentEvent, paymentEvents } from './document-events.ts';
import type { FieldValue } from '../../models/fields.ts';
import type { Values } from '../../models/define-model.ts';
import { deleteUnpaidReceipts } from '../payments/index.ts';
import { conversionRate } from './prepare-document.ts';
import { documentChanged, linesDiffer, sealedChanges, sealedError, sealOf } from './document-hooks.ts';
import { sameValue } from './same-value.ts';
import type { DocumentInput } from './document-input.ts';
import { loadReference, statusOf, type DocumentReference } from './document-reference.ts';
import { documentResult, headerOf, linesOf, lockDocument, visible, type DocumentResult, type Row } from './document-repository.ts';
import { settleCustomerRisk } from './customer-risk.ts';
import { changeStatus, type Status } from './document-status.ts';
import type { DocumentType } from './document-types.ts';
import { exerciseFor } from './fiscal-year.ts';
import { payInvoiceReceipts } from './invoice-receipts.ts';
import { syncLines } from './line-changes.ts';
import { assignNumber, checkInvoiceChronology, lockNumbering, releaseNumber } from './numbering.ts';
import { recalculate } from './recalculate.ts';

/** What a locked (non-editable) document still accepts (TransformerDocument unlocked fields). */
const UNLOCKED = new Set(['femail', 'idestado', 'idestado_ant', 'numdocs', 'pagada']);


/**
 * `editar<Doc>/{id}` (ApiEditDocument): the change below, where `pagada` can only pay (the
 * reference's editing endpoint never unpays). Answers the document and its lines.
 */
export async function editDocument(ctx: AppContext, type: DocumentType, id: FieldValue, input: DocumentInput): Promise<DocumentResult> {
  const ref = await loadReference(ctx);
  const change = input.pagada === false ? { ...input, pagada: undefined } : input;
  return inTransaction(ctx.database, async (trx) => {
    await changeDocument(ctx, trx, ref, type, id, change);
    return documentResult(trx, type, id);
  });
}

/** A generic `PUT`/`PATCH` of a document header: the change below. Answers the header. */
export async function updateDocument(ctx: AppContext, type: DocumentType, id: FieldValue, input: DocumentInput): Promise<Row> {
  const ref = await loadReference(ctx);
  return visible(type.header, await inTransaction(ctx.database, (trx) => changeDocument(ctx, trx, ref, type, id, input)));
}

/**
 * Changes a document. A non-editable document takes only the unlocked fields (unless the change
 * moves it to an editable status); the subject, company and warehouse never change; date and serie
 * changes renumber; `idestado` applies the status; lines are synchronised when sent; totals,
 * receipts and stock follow; `pagada` pays or unpays the receipts. A sealed document (an issued
 * invoice with its fiscal record, document-hooks.ts) keeps its sealed fields, lines and amounts:
 * a change that would alter them is refused whole. Its events are emitted once the transaction
 * commits.
 */
async function changeDocument(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, id: unknown, input: DocumentInput): Promise<Row> {
  const { dialect } = ctx.database;
  const lock = await lockDocument(db, dialect, type, id);
  if (!lock) throw new AppError('record-not-found');
  const doc = (await headerOf(db, type, id))!;
  // Announced first, before what the change caused (approval, generated document, payments), with
  // the header as the change leaves it.
  let saved: Row = doc;
  await publish(db, ctx, documentEvent(type, 'document.updated', id, () => ({ type: type.name, doc: visible(type.header, saved) })));
  const header = { ...input.header };
  const requestedStatus = header.idestado !== undefined && header.idestado !== null && !sameValue(header.idestado, doc.idestado) ? Number(header.idestado) : undefined;
  delete header.idestado;
  delete header.idestado_ant;
  const target: Status | undefined = requestedStatus === undefined ? undefined : statusOf(ref, type, requestedStatus);

  const changedFields = Object.keys(header).filter((name) => !sameValue(header[name], doc[name]));
  const locked = !doc.editable && !(target?.editable ?? false);
  if (locked && (input.lines !== undefined || changedFields.some((name) => !UNLOCKED.has(name)) || input.fecha || input.hora)) {
    throw new AppError('document-not-editable');
  }
  const fixed: Array<[string, 'cannot-change-subject' | 'cannot-change-company' | 'cannot-change-warehouse']> = [
    [type.subject, 'cannot-change-subject'], ['idempresa', 'cannot-change-company'], ['codalmacen', 'cannot-change-warehouse'],
  ];
  for (const [field, code] of fixed) if (changedFields.includes(field)) throw new AppError(code);
  const seal = await sealOf(ctx, db, type, id);
  if (seal) {
    const sealed = sealedChanges(doc, { ...header, ...(input.fecha !== undefined ? { fecha: input.fecha } : {}) });
    if (sealed.length) throw sealedError(seal, sealed);
  }
  const linesBefore = seal && input.lines !== undefined ? await linesOf(db, type, id) : undefined;

  // Moving back to an editable status first, so that the rest of the change applies unlocked.
  if (target?.editable && !doc.editable) await applyStatus(ctx, db, ref, type, id, target);

  const values: Values = {};
  for (const name of changedFields) values[name] = header[name];
  if (values.coddivisa !== undefined) values.tasaconv = await conversionRate(db, ref, type, String(values.coddivisa));
  const fecha = input.fecha ?? (doc.fecha as string);
  const hora = input.hora ?? (doc.hora as string);
  const codserie = (values.codserie as string | undefined) ?? (doc.codserie as string);
  // The number the document leaves, given back once it holds its new one.
  let released: Parameters<typeof releaseNumber>[3] | undefined;
  if (input.fecha !== undefined || input.hora !== undefined || values.codserie !== undefined) {
    const codejercicio = await exerciseFor(ctx, db, Number(doc.idempresa), fecha);
    // The numbering it leaves and the one it joins: always in the same order, so two moves never deadlock.
    // One scope when it stays (a new date within its year): its rows are locked once.
    const scopes = new Map([{ codserie: String(doc.codserie), codejercicio: String(doc.codejercicio) }, { codserie, codejercicio }]
      .map((scope) => [`${scope.codserie}|${scope.codejercicio}`, { ...scope, idempresa: Number(doc.idempresa) }]));
    for (const key of [...scopes.keys()].sort()) await lockNumbering(db, dialect, type, scopes.get(key)!);
    Object.assign(values, { fecha, hora });
    if (codejercicio !== doc.codejercicio || codserie !== doc.codserie) {
      released = { codserie: String(doc.codserie), idempresa: Number(doc.idempresa), codejercicio: String(doc.codejercicio), numero: Number(doc.numero) };
      const assigned = await assignNumber(db, dialect, type, { codserie, idempresa: Number(doc.idempresa), codejercicio, fecha, hora });
      Object.assign(values, { codejercicio, numero: String(assigned.numero), codigo: assigned.codigo });
    }
    await checkInvoiceChronology(db, dialect, type, {
      idempresa: Number(doc.idempresa), codserie, codejercicio: String(values.codejercicio ?? doc.codejercicio),
      numero: Number(values.numero ?? doc.numero), fecha, id: Number(id),
    });
  }
  const pagada = values.pagada ?? input.pagada;
  delete values.pagada;
  // A new payment method replaces the unpaid receipts (they are regenerated with its terms).
  if (type.invoice && values.codpago !== undefined) await deleteUnpaidReceipts(db, dialect, ctx.hooks, type.side, Number(id));
  if (Object.keys(values).length) await ctx.store.update(type.header, id as number, values, db);
  if (released) await releaseNumber(db, dialect, type, released);
  if (input.lines !== undefined) await syncLines(ctx, db, ref, type, (await headerOf(db, type, id))!, input.lines);

  // A document that was locked and stays locked keeps its totals: later changes of taxes, regimes
  // or settings never rewrite an issued invoice. A sealed one is re-summed with the taxes its lines
  // carry, unless its lines were sent again (the check below then compares what the rules made).
  const recalculated = locked ? { payments: 0, linesChanged: false } : await recalculate(ctx, db, ref, type, id, seal && !linesBefore ? 'stored' : 'rules');
  let { payments } = recalculated;
  if (seal) {
    const after = (await headerOf(db, type, id))!;
    const sealed = sealedChanges(doc, after);
    if (linesBefore && linesDiffer(linesBefore, await linesOf(db, type, id))) sealed.push('lineas');
    if (sealed.length) throw sealedError(seal, sealed);
  }
  if (target && (!target.editable || doc.editable)) await applyStatus(ctx, db, ref, type, id, target);
  if (type.invoice && pagada !== undefined && pagada !== null) {
    const changed = await payInvoiceReceipts({ db, dialect, type, invoice: (await headerOf(db, type, id))!, decimals: ref.settings.decimals, today: ref.today, hooks: ctx.hooks }, pagada === true);
    payments += changed.length;
    await publish(db, ctx, ...paymentEvents(type, id, changed, pagada === true, 0));
  }
  await publish(db, ctx, ...paymentEvents(type, id, [], false, payments));
  saved = (await headerOf(db, type, id))!;
  await ctx.hooks.run(documentChanged, { ctx, db, ref, type, id: Number(id), before: doc, after: saved, linesChanged: input.lines !== undefined || recalculated.linesChanged });
  await settleCustomerRisk(db, dialect, ref.settings.decimals, lock.customer, saved);
  return saved;
}

async function applyStatus(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, id: unknown, status: Status): Promise<void> {
  const { generated } = await changeStatus(ctx, db, ref, type, id, status.idestado);
  if (status.generadoc || !status.editable) {
    const doc = (await headerOf(db, type, id))!;
    await publish(db, ctx, documentEvent(type, 'document.approved', id, { type: type.name, doc: visible(type.header, doc), idestado: status.idestado }));
  }
  if (generated) {
    const child = (await headerOf(db, generated.type, generated.id))!;
    const lines = (await linesOf(db, generated.type, generated.id)).map((line) => visible(generated.type.line, line));
    await publish(db, ctx, documentEvent(generated.type, 'document.created', generated.id, { type: generated.type.name, doc: visible(generated.type.header, child), lines }));
  }
}
