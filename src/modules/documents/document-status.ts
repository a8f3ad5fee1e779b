import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { validationError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { moveStock, type StockMove } from '../catalogue/index.ts';
import type { DocumentStatus } from '../company/index.ts';
import { statusOf, type DocumentReference } from './document-reference.ts';
import { headerOf, linesOf, type Row } from './document-repository.ts';
import { documentType, type DocumentType } from './document-types.ts';
import { effectOf, insertDocument } from './insert-document.ts';
import { subjectOf } from './subject.ts';

/** Header columns a generated document does not copy from its parent (BusinessDocumentGenerator). */
const NOT_COPIED = new Set([
  'codejercicio', 'codigo', 'codigorect', 'fecha', 'femail', 'hora', 'idasiento', 'idestado', 'idestado_ant', 'idfacturarect',
  'neto', 'netosindto', 'numero', 'pagada', 'vencida', 'total', 'totalirpf', 'totaliva', 'totalrecargo', 'totalsuplidos',
  'totaleuros', 'totalcoste', 'totalbeneficio', 'fechadevengo', 'editable', 'creationdate', 'numdocs',
]);
const LINE_NOT_COPIED = new Set(['idlinea', 'orden', 'servido', 'actualizastock', 'pvpsindto', 'pvptotal', 'idlinearect']);

export type Status = DocumentStatus;

/** The header values a document derived from `source` (generated, or refunded) starts with. */
export function copyHeader(sourceType: DocumentType, source: Row, targetType: DocumentType): Values {
  const header: Values = {};
  for (const [name, value] of Object.entries(source)) {
    if (name === sourceType.key || NOT_COPIED.has(name) || !(name in targetType.header.fields) || targetType.header.fields[name]!.readOnly) continue;
    header[name] = value as Values[string];
  }
  return header;
}

/** A line cloned into another document (quantities and stock mode are the caller's). */
export function copyLine(sourceType: DocumentType, line: Row, targetType: DocumentType): Values {
  const values: Values = {};
  for (const [name, value] of Object.entries(line)) {
    if (name === sourceType.key || LINE_NOT_COPIED.has(name) || !(name in targetType.line.fields)) continue;
    values[name] = value as Values[string];
  }
  return { ...values, servido: 0 };
}

/** Sets every line's stock mode to the status' and moves stock accordingly. */
export async function applyLineStockMode(db: DbExecutor, dialect: SqlDialect, type: DocumentType, doc: Row, mode: number): Promise<void> {
  const moves: StockMove[] = [];
  for (const [index, line] of (await linesOf(db, type, doc[type.key])).entries()) {
    const before = effectOf(line);
    if (before.mode === mode) continue;
    await db.updateTable(type.line.table).set({ actualizastock: mode }).where('idlinea', '=', line.idlinea as number).execute();
    moves.push({ codalmacen: String(doc.codalmacen), referencia: (line.referencia as string | null) ?? null, before, after: { ...before, mode }, line: `lineas[${index}]` });
  }
  await moveStock(db, dialect, ...moves);
}

/** Documents generated from this one (its `doctransformations` as parent). */
export async function childrenOf(db: DbExecutor, type: DocumentType, id: unknown): Promise<Row[]> {
  return db.selectFrom('doctransformations').selectAll().where('model1', '=', type.name).where('iddoc1', '=', id as number).execute();
}

/**
 * Moves a document to a status (facturascripts-model.md 3.9): `idestado_ant` keeps the previous
 * one, `editable` follows it, the lines' stock mode follows it, and a status with `generadoc`
 * generates the follow-up document for the quantities not yet served. Returns the generated
 * document, if any.
 */
export async function changeStatus(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, id: unknown, idestado: number): Promise<{ status: Status; generated?: { type: DocumentType; id: number } }> {
  const doc = (await headerOf(db, type, id))!;
  const status = statusOf(ref, type, idestado);
  if (Number(doc.idestado) === status.idestado) return { status };
  const { dialect } = ctx.database;
  await db.updateTable(type.header.table)
    .set({ idestado: status.idestado, idestado_ant: (doc.idestado as number | null) ?? null, editable: dialect.boolean(status.editable) })
    .where(type.key, '=', id as number).execute();
  await applyLineStockMode(db, dialect, type, doc, status.actualizastock);
  if (!status.generadoc) return { status };
  const generated = await generateFrom(ctx, db, ref, type, { ...doc, idestado: status.idestado }, documentType(status.generadoc));
  return { status, ...(generated ? { generated } : {}) };
}

/**
 * The follow-up document of `parent` (BusinessDocumentGenerator::generate): header copied but for
 * the numbering, dates, totals and status; every line still pending (`cantidad - servido`) cloned
 * with that quantity, the parent line marked served, and a `doctransformations` row per line.
 */
async function generateFrom(ctx: AppContext, db: DbExecutor, ref: DocumentReference, parentType: DocumentType, parent: Row, childType: DocumentType): Promise<{ type: DocumentType; id: number } | undefined> {
  const firstChild = (await childrenOf(db, parentType, parent[parentType.key])).length === 0;
  const parentLines = await linesOf(db, parentType, parent[parentType.key]);
  const pending = parentLines
    .map((line) => ({ line, quantity: firstChild ? Number(line.cantidad) : Number(line.cantidad) - Number(line.servido) }))
    .filter(({ quantity }) => quantity !== 0);
  if (!firstChild && !pending.length) return undefined;
  if (parentType.side !== childType.side) throw validationError({ idestado: 'invalid-generadoc' });

  const childStatus = statusOf(ref, childType);
  const header = { ...copyHeader(parentType, parent, childType), idestado: childStatus.idestado, editable: childStatus.editable };
  const lines: Values[] = pending.map(({ line, quantity }) => ({ ...copyLine(parentType, line, childType), cantidad: quantity, actualizastock: childStatus.actualizastock }));
  const subject = (await subjectOf(db, childType, String(parent[childType.subject]))) ?? {};
  const { id } = await insertDocument(ctx, db, ref, childType, { header, lines, fecha: ref.today.date, hora: ref.today.time, subject });
  const childLines = await linesOf(db, childType, id);
  for (const [index, { line, quantity }] of pending.entries()) {
    const child = childLines[index]!;
    await db.updateTable(parentType.line.table).set({ servido: Number(line.servido) + quantity }).where('idlinea', '=', line.idlinea as number).execute();
    await db.insertInto('doctransformations').values({
      model1: parentType.name, iddoc1: parent[parentType.key], idlinea1: line.idlinea,
      model2: childType.name, iddoc2: id, idlinea2: child.idlinea, cantidad: quantity,
    }).execute();
  }
  return { type: childType, id };
}
