import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { moveStock, type StockMove } from '../catalogue/index.ts';
import type { LockedCustomer } from './customer-risk.ts';
import { buildLines, lineDefaults, productParts, type LineDefaults } from './document-lines.ts';
import { statusOf, type DocumentReference } from './document-reference.ts';
import { headerOf, linesOf, lockDocument, type Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import { effectOf } from './insert-document.ts';
import { sealedError, sealOf } from './document-hooks.ts';
import { subjectOf } from './subject.ts';

/** What a new line of this stored document starts with: status stock mode, default tax, document IRPF, subject. */
export async function lineDefaultsOf(db: DbExecutor, ref: DocumentReference, type: DocumentType, doc: Row): Promise<LineDefaults> {
  const status = statusOf(ref, type, doc.idestado);
  const subject = (await subjectOf(db, type, String(doc[type.subject]))) ?? {};
  return lineDefaults(ref.settings, status.actualizastock, subject, doc);
}

/** When a line's reference changes, the product's description, tax, cost and price come with it. */
export async function productPartIfChanged(db: DbExecutor, ref: DocumentReference, type: DocumentType, current: Row, changes: Values, defaults: LineDefaults): Promise<Values> {
  if (changes.referencia === undefined || changes.referencia === current.referencia) return {};
  if (typeof changes.referencia !== 'string' || changes.referencia === '') return { idproducto: null };
  return (await productParts(db, ref.taxes, type, [changes.referencia], defaults)).get(changes.referencia) ?? { idproducto: null };
}

/** Stock moves of a changed line: the old reference gives its effect back, the new one takes the new effect. */
export function lineStockMoves(doc: Row, before: Row, after: Row, line: string): StockMove[] {
  const codalmacen = String(doc.codalmacen);
  const [oldRef, newRef] = [(before.referencia as string | null) ?? null, (after.referencia as string | null) ?? null];
  if (oldRef === newRef) return [{ codalmacen, referencia: newRef, before: effectOf(before), after: effectOf(after), line }];
  return [
    { codalmacen, referencia: oldRef, before: effectOf(before), after: undefined, line },
    { codalmacen, referencia: newRef, before: undefined, after: effectOf(after), line },
  ];
}

/**
 * Full line synchronisation (ApiEditDocument): an element with the `idlinea` of an existing line
 * updates it (fields not sent keep their values), any other element is a new line, and existing
 * lines missing from the list are deleted. Stock follows every change.
 */
export async function syncLines(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, doc: Row, inputs: Values[]): Promise<void> {
  const existing = new Map((await linesOf(db, type, doc[type.key])).map((line) => [Number(line.idlinea), line]));
  const kept = new Set<number>();
  const defaults = await lineDefaultsOf(db, ref, type, doc);
  const moves: StockMove[] = [];
  const updates: Array<{ current: Row; update: Values }> = [];
  const added: Array<{ input: Values; index: number }> = [];
  for (const [index, input] of inputs.entries()) {
    const current = input.idlinea === undefined || input.idlinea === null ? undefined : existing.get(Number(input.idlinea));
    if (!current || kept.has(Number(current.idlinea))) {
      added.push({ input, index });
      continue;
    }
    kept.add(Number(current.idlinea));
    const { idlinea: _id, ...changes } = input;
    const update = { ...(await productPartIfChanged(db, ref, type, current, changes, defaults)), ...changes };
    updates.push({ current, update });
    moves.push(...lineStockMoves(doc, current, lineAfter(type, current, update), `lineas[${index}]`));
  }
  const { lines: built } = added.length ? await buildLines(db, ref.taxes, type, added.map(({ input }) => input), defaults, added.map(({ index }) => index)) : { lines: [] };
  const rows = built.map((line) => ({ ...line, [type.key]: doc[type.key] as number }));
  for (const [offset, row] of rows.entries()) {
    moves.push({ codalmacen: String(doc.codalmacen), referencia: (row.referencia as string | null) ?? null, before: undefined, after: effectOf(row), line: `lineas[${added[offset]!.index}]` });
  }
  const removed = [...existing].filter(([id]) => !kept.has(id));
  for (const [id, line] of removed) moves.push({ codalmacen: String(doc.codalmacen), referencia: (line.referencia as string | null) ?? null, before: effectOf(line), after: undefined, line: `idlinea ${id}` });
  // Stock first (its rows, then the variants' and products'): a line written before would share its
  // product's row (the foreign key) ahead of the stock's locks, against the lock order.
  await moveStock(db, ctx.database.dialect, ...moves);
  for (const { current, update } of updates) if (Object.keys(update).length) await ctx.store.update(type.line, current.idlinea as number, update, db);
  if (rows.length) await ctx.store.insertMany(type.line, rows, db);
  if (removed.length) await db.deleteFrom(type.line.table).where('idlinea', 'in', removed.map(([id]) => id)).execute();
}

/**
 * A line as a change will leave it, for its stock move before it is written: its values and the
 * change, with the line model's own rule on `servido` (an invoice line is never served; a negative
 * served quantity of a non-negative line is none).
 */
export function lineAfter(type: DocumentType, current: Row, update: Values): Row {
  const after: Row = { ...current, ...update };
  if (type.invoice || (Number(after.servido ?? 0) < 0 && Number(after.cantidad ?? 0) >= 0)) after.servido = 0;
  return after;
}

/**
 * A line change through the generic resources: allowed while the document is editable and not
 * sealed (document-hooks.ts). Answers the document, locked for the change, and a sales document's
 * locked customer (customer-risk.ts).
 */
export async function editableDocumentOf(ctx: AppContext, db: DbExecutor, type: DocumentType, id: unknown): Promise<{ doc: Row; customer?: LockedCustomer }> {
  const lock = await lockDocument(db, ctx.database.dialect, type, id);
  if (!lock) throw validationError({ [type.key]: 'not-found' });
  const doc = (await headerOf(db, type, id))!;
  if (!doc.editable) throw new AppError('document-not-editable');
  const seal = await sealOf(ctx, db, type, id);
  if (seal) throw sealedError(seal, ['lineas']);
  return { doc, customer: lock.customer };
}
