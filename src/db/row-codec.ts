import type { Model } from '../models/define-model.ts';
import type { FieldDef, FieldValue } from '../models/fields.ts';
import type { Engine } from './database.ts';

/** A boolean as any engine returns it (true/false, 1/0). */
export function dbBoolean(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

/** A value as the engine's driver wants it bound (SQLite and MySQL keep booleans as 0/1, JSON as text). */
export function toDbValue(engine: Engine, field: FieldDef, value: FieldValue | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'boolean') return engine === 'postgres' ? Boolean(value) : value ? 1 : 0;
  if (field.type === 'json') return JSON.stringify(value);
  return value;
}

export function toDbValues(engine: Engine, model: Model, values: Record<string, FieldValue | undefined>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const name in values) {
    const value = values[name];
    if (value !== undefined) row[name] = toDbValue(engine, model.fields[name]!, value);
  }
  return row;
}

function fromDbValue(field: FieldDef, raw: unknown): FieldValue {
  if (raw === null || raw === undefined) return null;
  switch (field.type) {
    case 'boolean':
      return dbBoolean(raw);
    case 'serial':
    case 'integer':
    case 'double':
      return typeof raw === 'number' ? raw : Number(raw);
    case 'json':
      if (typeof raw !== 'string') return raw as Record<string, unknown>;
      try {
        return JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return null;
      }
    case 'binary':
      return (Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array)) as unknown as FieldValue;
    case 'timestamp':
      // PostgreSQL may add fractional seconds; the API shows whole seconds everywhere.
      return String(raw).slice(0, 19).replace('T', ' ');
    default:
      return String(raw);
  }
}

export type RowReader = (row: Record<string, unknown>) => Record<string, FieldValue>;

/** Each model's reader of all its fields, built once (documents read and write their rows on every request). */
const readers = new WeakMap<Model, RowReader>();

/** Builds the reader of a model's rows: same JSON types on every engine. */
export function rowReader(model: Model, fields?: string[]): RowReader {
  if (fields) return readerOf(model, fields);
  let reader = readers.get(model);
  if (!reader) readers.set(model, (reader = readerOf(model, model.fieldNames)));
  return reader;
}

function readerOf(model: Model, fields: string[]): RowReader {
  const defs = fields.map((name) => [name, model.fields[name]!] as const);
  return (row) => {
    const record: Record<string, FieldValue> = {};
    for (const [name, field] of defs) record[name] = fromDbValue(field, row[name]);
    return record;
  };
}
