import type { DbExecutor } from '../../db/database.ts';
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
