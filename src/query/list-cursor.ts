import { AppError } from '../errors.ts';
import type { Model } from '../models/define-model.ts';
import type { FieldValue } from '../models/fields.ts';

/**
 * Keyset paging: the opaque `cursor` of a list's `Link: <...>; rel="next"` holds the sort values of
 * the page's last row (the primary key ends every sort), so the next page starts right after that
 * row with an indexed condition instead of an OFFSET that walks every row before it. Only where every
 * sort field is NOT NULL and read without a transform (NULLs order differently on each engine);
 * other sorts page with `offset` (docs/query-syntax.md).
 */
const VERSION = 'k1';

/** A sort key may read the column through a function: `sort[integer:numero]`, `lower:`, `upper:`. */
export type SortTransform = 'integer' | 'lower' | 'upper';

/** A list's sort keys, in order (list-query.ts parses them). */
export type ListSort = Array<{ field: string; direction: 'asc' | 'desc'; transform?: SortTransform }>;

const signatureOf = (sort: ListSort) => sort.map((entry) => `${entry.field}:${entry.direction}`).join(',');

/** Whether lists in this order can page by cursor. */
export function keysetPageable(model: Model, sort: ListSort): boolean {
  return sort.every((entry) => !entry.transform && !model.fields[entry.field]!.nullable);
}

/** The cursor that continues after `row` (a record as the list answered it). */
export function encodeListCursor(sort: ListSort, row: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify([VERSION, signatureOf(sort), sort.map((entry) => row[entry.field] ?? null)]), 'utf8').toString('base64url');
}

const TYPES: Record<string, string> = { serial: 'number', integer: 'number', double: 'number', boolean: 'boolean' };

/** The sort values a `cursor` parameter carries for this model and order, or 400 `invalid-cursor`. */
export function decodeListCursor(model: Model, sort: ListSort, cursor: string): FieldValue[] {
  if (!keysetPageable(model, sort)) throw new AppError('invalid-cursor', { reason: 'sort-not-pageable' });
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]{1,4000}$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed[0] !== VERSION || parsed[1] !== signatureOf(sort) || !Array.isArray(parsed[2]) || parsed[2].length !== sort.length) {
    throw new AppError('invalid-cursor');
  }
  const values = parsed[2] as unknown[];
  sort.forEach((entry, index) => {
    const expected = TYPES[model.fields[entry.field]!.type] ?? 'string';
    if (typeof values[index] !== expected || (expected === 'number' && !Number.isFinite(values[index]))) throw new AppError('invalid-cursor');
  });
  return values as FieldValue[];
}
