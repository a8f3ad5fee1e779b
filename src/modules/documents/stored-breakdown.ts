import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { storedTax } from './calculation/calculate.ts';
import type { Calculation } from './calculation/types.ts';
import { calcContextFor, type DocumentReference } from './document-reference.ts';
import type { Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import { calculate, productTypesOf } from './recalculate.ts';

/**
 * The tax breakdown (groups per VAT and surcharge rate) of a stored document, summed from its
 * stored lines with the taxes they carry, as the engine summed them when it wrote the document:
 * a later change of a tax's rate does not move an issued invoice's breakdown. `subject` is the
 * customer or supplier row (its VAT regime); `productTypes` the lines' products' `tipo` when the
 * caller read them. For readers (export) and an invoice's accounting entry
 * (posting).
 */
export async function storedBreakdown(db: DbExecutor, ref: DocumentReference, type: DocumentType, doc: Row, lines: Row[], subject: Row, productTypes?: ReadonlyMap<number, string | null>): Promise<Calculation> {
  return calculate(type, doc, lines, await calcContextFor(db, ref, doc, subject), new Map(productTypes ?? (await productTypesOf(db, lines))), storedTax);
}

/**
 * The stored breakdowns of several stored documents of one type (their headers as read), by id:
 * their lines, customers or suppliers and products read once for all of them, a few statements a
 * page whatever its size (a form filling the tax rows of older invoices, an import checking every
 * document).
 */
export async function storedBreakdowns(db: DbExecutor, ref: DocumentReference, type: DocumentType, headers: readonly Row[]): Promise<Map<number, Calculation>> {
  const ids = headers.map((header) => Number(header[type.key]));
  const breakdowns = new Map<number, Calculation>();
  if (!ids.length) return breakdowns;
  const lines = (await db.selectFrom(type.line.table).selectAll().where(type.key, 'in', ids).orderBy('idlinea').execute()).map(rowReader(type.line));
  const byDocument = Map.groupBy(lines, (line) => Number(line[type.key]));
  const codes = [...new Set(headers.map((header) => String(header[type.subject] ?? '')))];
  const subjects = new Map((await db.selectFrom(type.subjectTable).selectAll().where(type.subject, 'in', codes).execute()).map((row) => [String(row[type.subject]), row as Row]));
  const productTypes = await productTypesOf(db, lines);
  for (const header of headers) {
    const id = Number(header[type.key]);
    breakdowns.set(id, await storedBreakdown(db, ref, type, header, byDocument.get(id) ?? [], subjects.get(String(header[type.subject] ?? '')) ?? {}, productTypes));
  }
  return breakdowns;
}
