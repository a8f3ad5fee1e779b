import { AppError } from '../errors.ts';
import type { Model } from '../models/define-model.ts';
import { coerceValue, isStorableText } from '../models/coerce.ts';
import type { FieldValue } from '../models/fields.ts';
import { decodeListCursor, type ListSort, type SortTransform } from './list-cursor.ts';

/**
 * List query string -> validated AST (spec "List query parameters", plus the reference's `_is`,
 * `_isnot` and `operation[key]=OR`). Every field is checked against the model's visible columns
 * before anything reaches SQL; values are typed by the field and always bound as parameters.
 */
export type Operator = 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'neq' | 'like' | 'null' | 'notnull';

/** Suffix -> operator. `_is`/`_isnot` are the reference's spellings of null/notnull. */
export const SUFFIXES: Readonly<Record<string, Operator>> = Object.assign(Object.create(null) as Record<string, Operator>, {
  gt: 'gt',
  gte: 'gte',
  lt: 'lt',
  lte: 'lte',
  neq: 'neq',
  like: 'like',
  null: 'null',
  notnull: 'notnull',
  is: 'null',
  isnot: 'notnull',
});

export interface Condition {
  field: string;
  op: Operator;
  value: FieldValue;
}

export type { SortTransform } from './list-cursor.ts';

export interface ListQuery {
  /** Disjunction of conjunctions: `operation[key]=OR` starts a new group (AND binds tighter). */
  where: Condition[][];
  sort: ListSort;
  /** Rows wanted; null: every row (the lenient reading only). */
  limit: number | null;
  offset: number;
  /** `_like` values may hold `%` and `_` wildcards (the established system's reading). */
  likeWildcards?: boolean;
  /** Keyset paging: rows after these sort values (one per `sort` entry, from a `cursor`). */
  after?: FieldValue[];
}

export interface ListQueryOptions {
  defaultLimit: number;
  maxLimit: number;
  /**
   * The established system's reading (the `facturascripts` profile): no maximum `limit`, a `limit`
   * that is not a positive integer means every row (and `offset` is then ignored), an `offset`
   * that is not a non-negative integer means 0, a sort direction other than DESC means ASC, and
   * `%`/`_` in `_like` values are wildcards.
   */
  lenient?: boolean;
}

const TRANSFORMS = new Set<string>(['integer', 'lower', 'upper']);

type Query = Record<string, unknown>;

function single(query: Query, key: string): string {
  const value = query[key];
  if (Array.isArray(value)) throw new AppError('duplicate-parameter', { parameter: key });
  return value === undefined || value === null ? '' : String(value);
}

/** `nombre_like` -> { field: nombre, op: like }, trying the whole key as a field first. */
function parseFilterKey(model: Model, key: string, parameter: string): { field: string; op: Operator } {
  const visible = (name: string) => Object.hasOwn(model.fields, name) && !model.hidden.has(name);
  if (visible(key)) return { field: key, op: 'eq' };
  const cut = key.lastIndexOf('_');
  if (cut > 0) {
    const field = key.slice(0, cut);
    const op = SUFFIXES[key.slice(cut + 1)];
    if (op && visible(field)) return { field, op };
    if (visible(field)) throw new AppError('invalid-filter-operator', { parameter });
  }
  throw new AppError('invalid-filter-field', { parameter });
}

function parseFilterValue(model: Model, field: string, op: Operator, raw: string, parameter: string): FieldValue {
  if (op === 'null' || op === 'notnull') return null;
  if (op === 'like') {
    if (!isStorableText(raw)) throw new AppError('invalid-filter-value', { parameter });
    return raw;
  }
  const definition = model.fields[field]!;
  const coerced = coerceValue({ ...definition, nullable: true, length: undefined }, raw, 'json', { range: false });
  if (!coerced.ok || coerced.value === null) {
    // An empty value compares with the empty string on text fields; elsewhere it means nothing.
    if (raw === '' && (definition.type === 'string' || definition.type === 'text')) return '';
    throw new AppError('invalid-filter-value', { parameter });
  }
  return coerced.value;
}

function parseInteger(raw: string, code: 'invalid-limit' | 'invalid-offset', min: number, max: number, extra?: object): number {
  if (!/^\d+$/.test(raw)) throw new AppError(code, { ...extra });
  const value = Number(raw);
  if (value < min || value > max) throw new AppError(code, { ...extra });
  return value;
}

export function parseListQuery(model: Model, query: Query, options: ListQueryOptions): ListQuery {
  const filters: Array<{ key: string; condition: Condition }> = [];
  const operations = new Map<string, 'and' | 'or'>();
  const sort: ListQuery['sort'] = [];

  for (const parameter of Object.keys(query)) {
    const match = /^(filter|sort|operation)\[([^\]]*)\]$/.exec(parameter);
    if (!match) {
      // spec: other parameters are ignored; a malformed filter/sort/operation is still refused.
      if (/^(filter|sort|operation)\[/.test(parameter)) {
        const code = parameter.startsWith('sort') ? 'invalid-sort-field' : parameter.startsWith('filter') ? 'invalid-filter-field' : 'invalid-operation';
        throw new AppError(code, { parameter });
      }
      continue;
    }
    const [, kind, key] = match as unknown as [string, string, string];
    const raw = single(query, parameter);
    if (kind === 'filter') {
      const { field, op } = parseFilterKey(model, key, parameter);
      filters.push({ key, condition: { field, op, value: parseFilterValue(model, field, op, raw, parameter) } });
    } else if (kind === 'sort') {
      const colon = key.indexOf(':');
      const transform = colon > 0 && TRANSFORMS.has(key.slice(0, colon)) ? (key.slice(0, colon) as SortTransform) : undefined;
      const field = transform ? key.slice(colon + 1) : key;
      if (!Object.hasOwn(model.fields, field) || model.hidden.has(field)) throw new AppError('invalid-sort-field', { parameter });
      let direction = raw.toLowerCase();
      if (direction !== 'asc' && direction !== 'desc') {
        if (!options.lenient) throw new AppError('invalid-sort-direction', { parameter });
        direction = 'asc';
      }
      sort.push({ field, direction: direction as 'asc' | 'desc', ...(transform ? { transform } : {}) });
    } else {
      const connector = raw.toLowerCase();
      if (connector !== 'and' && connector !== 'or') throw new AppError('invalid-operation', { parameter });
      operations.set(key, connector);
    }
  }
  for (const key of operations.keys()) {
    if (!filters.some((filter) => filter.key === key)) throw new AppError('invalid-operation', { parameter: `operation[${key}]` });
  }

  const where: Condition[][] = [];
  for (const [index, filter] of filters.entries()) {
    if (index === 0 || operations.get(filter.key) === 'or') where.push([]);
    where[where.length - 1]!.push(filter.condition);
  }
  // The primary key ends every order, so that pages never repeat or skip rows of equal sort values;
  // in the direction of the last sort, so that an index on the sorted columns (which ends with the
  // key, or the row id) gives the whole order without sorting.
  const last = sort[sort.length - 1];
  if (!sort.some((entry) => entry.field === model.primaryKey)) sort.push({ field: model.primaryKey, direction: last && !last.transform ? last.direction : 'asc' });

  const limitRaw = single(query, 'limit');
  const offsetRaw = single(query, 'offset');
  if (options.lenient) {
    const limit = limitRaw === '' ? options.defaultLimit : /^\d+$/.test(limitRaw) && Number(limitRaw) > 0 && Number.isSafeInteger(Number(limitRaw)) ? Number(limitRaw) : null;
    const offset = limit !== null && /^\d+$/.test(offsetRaw) && Number.isSafeInteger(Number(offsetRaw)) ? Number(offsetRaw) : 0;
    return { where, sort, limit, offset, likeWildcards: true };
  }
  const cursor = single(query, 'cursor');
  const offset = offsetRaw === '' ? 0 : parseInteger(offsetRaw, 'invalid-offset', 0, Number.MAX_SAFE_INTEGER);
  if (cursor !== '' && offset !== 0) throw new AppError('invalid-cursor', { reason: 'cursor-with-offset' });
  return {
    where,
    sort,
    limit: limitRaw === '' ? options.defaultLimit : parseInteger(limitRaw, 'invalid-limit', 1, options.maxLimit, { max: options.maxLimit }),
    offset,
    ...(cursor === '' ? {} : { after: decodeListCursor(model, sort, cursor) }),
  };
}
