import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { rowReader } from '../../db/row-codec.ts';
import { warningsOf, type Warning } from '../../db/transaction.ts';
import { checkPrecondition } from '../../db/preconditions.ts';
import { AppError } from '../../errors.ts';
import type { Model } from '../../models/define-model.ts';
import { lockCustomerOfDocument, type LockedCustomer } from './customer-risk.ts';
import type { DocumentType } from './document-types.ts';

/** Reads of documents and their lines, typed as the models declare them. */
export type Row = Record<string, unknown>;

export interface DocumentResult {
  doc: Row;
  lines: Row[];
  /** What the operation could not do beside the document (e.g. its accounting entry), when anything. */
  warnings?: Warning[];
}

export async function headerOf(db: DbExecutor, type: DocumentType, id: unknown): Promise<Row | undefined> {
  const row = await db.selectFrom(type.header.table).selectAll().where(type.key, '=', id as number).executeTakeFirst();
  return row ? rowReader(type.header)(row) : undefined;
}

/**
 * The id of the document a client names by id or by `codigo` (export paths accept both): an all-digit
 * value is an id first, and a `codigo` when no document has that id; anything else is a `codigo`.
 * A `codigo` two companies share is `ambiguous-document-code` (409): the id must be used.
 */
export async function documentIdOf(db: DbExecutor, type: DocumentType, idOrCode: string): Promise<number | undefined> {
  if (/^[0-9]{1,9}$/.test(idOrCode)) {
    const byId = await db.selectFrom(type.header.table).select(type.key).where(type.key, '=', Number(idOrCode)).executeTakeFirst();
    if (byId) return Number(byId[type.key]);
  }
  if (idOrCode.length > 20) return undefined;
  // `codigo` is unique per company: two companies may share one, and guessing would send the wrong document.
  const byCode = await db.selectFrom(type.header.table).select(type.key).where('codigo', '=', idOrCode).limit(2).execute();
  if (byCode.length > 1) throw new AppError('ambiguous-document-code', { codigo: idOrCode });
  return byCode.length ? Number(byCode[0]![type.key]) : undefined;
}

/** True when rectifying invoices point to this invoice (`idfacturarect`). */
export async function hasRefunds(db: DbExecutor, type: DocumentType, id: unknown): Promise<boolean> {
  const rows = await db.selectFrom(type.header.table).select(type.key).where('idfacturarect', '=', id as number).limit(1).execute();
  return rows.length > 0;
}

/** The stored lines of a document, in their order of creation. */
export async function linesOf(db: DbExecutor, type: DocumentType, id: unknown): Promise<Row[]> {
  const read = rowReader(type.line);
  const rows = await db.selectFrom(type.line.table).selectAll().where(type.key, '=', id as number).orderBy('idlinea', 'asc').execute();
  return rows.map(read);
}

/** Visible fields only: what the API shows of a record. */
export function visible(model: Model, row: Row): Row {
  const out: Row = {};
  for (const name of model.visibleFields) out[name] = row[name];
  return out;
}

/** What the document endpoints answer: the header and its lines as stored. */
export async function documentResult(db: DbExecutor, type: DocumentType, id: unknown): Promise<DocumentResult> {
  const doc = (await headerOf(db, type, id))!;
  const warnings = warningsOf(db);
  return { doc: visible(type.header, doc), lines: (await linesOf(db, type, id)).map((line) => visible(type.line, line)), ...(warnings.length ? { warnings } : {}) };
}

/** What `lockDocument` holds: the document, and a sales document's customer (customer-risk.ts). */
export interface DocumentLock {
  customer?: LockedCustomer;
}

/**
 * Takes the document's row lock for the rest of the transaction (PostgreSQL, MariaDB; SQLite has
 * one writer), after its customer's for a sales document. Every use case that changes an existing
 * document takes it first, so that two concurrent payments, edits or refunds of one document run
 * one after the other and each sees the other's result. Undefined when the document does not exist.
 */
export async function lockDocument(db: DbExecutor, dialect: SqlDialect, type: DocumentType, id: unknown): Promise<DocumentLock | undefined> {
  const customer = await lockCustomerOfDocument(db, dialect, type, id);
  const query = db.selectFrom(type.header.table).select(type.key).where(type.key, '=', id as number);
  if ((await dialect.locking(query).executeTakeFirst()) === undefined) return undefined;
  // A request's `If-Match` on this document is checked here, under the lock (db/preconditions.ts).
  await checkPrecondition(db, type.header, id);
  return { customer };
}
