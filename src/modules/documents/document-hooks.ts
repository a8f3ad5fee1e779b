import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { hookPoint } from '../../hooks.ts';
import type { DocumentReference } from './document-reference.ts';
import type { Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import { sameValue } from './same-value.ts';

/**
 * The document engine's hook points (src/hooks.ts): how modules listed after `documents` (posting's
 * accounting entries, VERI*FACTU records) take part in its flow without an `if` for them in here.
 */

/** A document just written, in its creation's transaction. */
export interface CreatedDocument {
  ctx: AppContext;
  db: DbExecutor;
  /** The reference snapshot the creation took before its transaction. */
  ref: DocumentReference;
  type: DocumentType;
  id: number;
  /** The header as stored (every column). */
  header: Row;
  /** The lines as stored, with their computed amounts. */
  lines: Row[];
  /** The type (`tipo`) of every product a line names, as the calculation read it. */
  productTypes?: ReadonlyMap<number, string | null>;
}

/**
 * Runs after every new document is written (created, generated from another, a refund), with its
 * lines, totals and stock, before an invoice's receipts, in the same transaction: a handler's
 * failure refuses the creation.
 */
export const documentCreated = hookPoint<CreatedDocument>('documents.created');

/** A document changed, in the change's transaction: its header before and after (every column). */
export interface ChangedDocument {
  ctx: AppContext;
  db: DbExecutor;
  /** The reference snapshot the change took before its transaction. */
  ref: DocumentReference;
  type: DocumentType;
  id: number;
  before: Row;
  after: Row;
  /** Whether its lines changed (sent, written through their resources, or their taxes re-applied by the rules). */
  linesChanged: boolean;
}

/**
 * Runs after every change of a document (its header through `editar<Doc>`, PUT or PATCH, its lines
 * through their resources, its status), once its totals, receipts and status are settled, in the
 * same transaction: a handler's failure refuses the change.
 */
export const documentChanged = hookPoint<ChangedDocument>('documents.changed');

/** A document about to be deleted (its header as stored). */
export interface RemovedDocument {
  ctx: AppContext;
  db: DbExecutor;
  ref: DocumentReference;
  type: DocumentType;
  id: number;
  doc: Row;
}

/**
 * Runs when a deletion has passed the document's own checks, before its receipts, lines and header
 * go, in the deletion's transaction: a handler may refuse it (an AppError) or delete what it keeps
 * about the document.
 */
export const documentRemoving = hookPoint<RemovedDocument>('documents.removing');

/** A module's seal on a document: its fiscal identity and amounts are fixed (an issued invoice's record exists). */
export interface DocumentSeal {
  /** Answered to a change of a sealed field or of the lines. */
  change: ErrorCode;
  /** Answered to a deletion. */
  remove: ErrorCode;
}

/** Asks whether a stored document (by its id) is sealed, in the caller's transaction. */
export const documentSeal = hookPoint<{ db: DbExecutor; type: DocumentType; id: number }, DocumentSeal>('documents.seal');

/**
 * Header fields a sealed document keeps: who issues it to whom, its number and date, and every
 * amount. Its status, payment, notes, delivery data and attachments still change.
 */
const SEALED_FIELDS: readonly string[] = [
  'idempresa', 'codserie', 'codejercicio', 'numero', 'codigo', 'fecha', 'fechadevengo', 'codcliente', 'codproveedor', 'cifnif',
  'nombrecliente', 'nombre', 'codpais', 'coddivisa', 'tasaconv', 'operacion', 'dtopor1', 'dtopor2', 'irpf', 'neto', 'netosindto', 'totaliva',
  'totalrecargo', 'totalirpf', 'totalsuplidos', 'total', 'totaleuros', 'codigorect', 'idfacturarect',
];

/** The first seal a module puts on the document, if any. */
export async function sealOf(ctx: AppContext, db: DbExecutor, type: DocumentType, id: unknown): Promise<DocumentSeal | undefined> {
  const [seal] = await ctx.hooks.run(documentSeal, { db, type, id: Number(id) });
  return seal;
}

/** The sealed fields whose value differs between two versions of a header. */
export function sealedChanges(before: Row, after: Row): string[] {
  return SEALED_FIELDS.filter((name) => name in after && !sameValue(before[name], after[name]));
}

/** The refusal of a change to a sealed document: `fields` names what the change would have altered. */
export function sealedError(seal: DocumentSeal, fields: string[]): AppError {
  return new AppError(seal.change, { fields: Object.fromEntries(fields.map((name) => [name, 'sealed'])) });
}

/**
 * What of a line a sealed document keeps: the line itself (its id: rectifying lines point to it),
 * what it sells, at what price and tax, and the line it rectifies.
 */
const SEALED_LINE_FIELDS = ['idlinea', 'referencia', 'descripcion', 'cantidad', 'pvpunitario', 'dtopor', 'dtopor2', 'codimpuesto', 'iva', 'recargo', 'irpf', 'excepcioniva', 'suplido', 'pvptotal', 'idlinearect'];

/** True when two versions of a document's lines (in id order) differ in anything a sealed document keeps. */
export function linesDiffer(before: Row[], after: Row[]): boolean {
  return before.length !== after.length || before.some((line, index) => SEALED_LINE_FIELDS.some((name) => !sameValue(line[name], after[index]![name])));
}
