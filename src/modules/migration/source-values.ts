import type { FieldDef, FieldValue } from '../../models/fields.ts';

/**
 * A value of the source, as its driver read it, as our models hold it: taken as the source stored
 * it (no rule of ours applied, no rounding), only its representation changed (booleans as booleans,
 * dates as `YYYY-MM-DD`, timestamps to the second). What cannot be kept as
 * it was says why (`problem`), and the value taken instead: a zero date (MySQL's `0000-00-00`) is
 * no date, or 1970-01-01 in a column that must hold one; a NULL in a column of ours that takes
 * none gets the column's default (or its type's zero).
 */
export type Converted = { value: FieldValue; problem?: string };

const TRUE = new Set(['1', 't', 'true', 'y', 'yes', 'on']);

const zeroDate = (text: string) => /^0000-00-00/.test(text);

function dateText(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  return typeof value === 'string' ? value.trim().replace('T', ' ') : undefined;
}

/** A date a column that must hold one takes when the source's is none or no date (`0000-00-00`): the epoch, reported. */
const NO_DATE = '1970-01-01';

/** The value our column takes when the source has none but the column must hold one. */
function fallback(field: FieldDef): FieldValue {
  if (field.default !== undefined) return field.default as FieldValue;
  if (field.type === 'date') return NO_DATE;
  if (field.type === 'timestamp') return `${NO_DATE} 00:00:00`;
  if (field.type === 'time') return '00:00:00';
  if (field.type === 'string' || field.type === 'text') return '';
  if (field.type === 'boolean') return false;
  if (field.type === 'integer' || field.type === 'double') return 0;
  return null;
}

export function convertValue(field: FieldDef, value: unknown): Converted {
  if (value === null || value === undefined) {
    if (field.nullable || field.type === 'serial') return { value: null };
    const taken = fallback(field);
    return { value: taken, problem: 'null-in-required-column' };
  }
  switch (field.type) {
    case 'boolean': {
      const truth = typeof value === 'boolean' ? value : typeof value === 'number' || typeof value === 'bigint' ? Number(value) !== 0 : TRUE.has(String(value).trim().toLowerCase());
      return { value: truth };
    }
    case 'serial':
    case 'integer':
    case 'double': {
      const number = typeof value === 'number' ? value : Number(value);
      if (!Number.isFinite(number)) return { value: fallback(field), problem: 'not-a-number' };
      if (field.type !== 'double' && !Number.isInteger(number)) return { value: Math.trunc(number), problem: 'not-an-integer' };
      return { value: number };
    }
    case 'date': {
      const text = dateText(value);
      if (!text || zeroDate(text)) return { value: field.nullable ? null : fallback(field), problem: 'invalid-date' };
      return /^\d{4}-\d{2}-\d{2}/.test(text) ? { value: text.slice(0, 10) } : { value: field.nullable ? null : fallback(field), problem: 'invalid-date' };
    }
    case 'time': {
      const text = String(value).trim();
      return /^\d{2}:\d{2}(:\d{2})?/.test(text) ? { value: text.length === 5 ? `${text}:00` : text.slice(0, 8) } : { value: field.nullable ? null : fallback(field), problem: 'invalid-time' };
    }
    case 'timestamp': {
      const text = dateText(value);
      if (!text || zeroDate(text)) return { value: field.nullable ? null : fallback(field), problem: 'invalid-timestamp' };
      if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return { value: field.nullable ? null : fallback(field), problem: 'invalid-timestamp' };
      return { value: text.length <= 10 ? `${text.slice(0, 10)} 00:00:00` : text.slice(0, 19) };
    }
    case 'json': {
      const text = Buffer.isBuffer(value) ? value.toString('utf8') : typeof value === 'string' ? value : JSON.stringify(value);
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed !== null && typeof parsed === 'object') return { value: text };
      } catch {
        // reported below
      }
      return { value: field.nullable ? null : '{}', problem: 'invalid-json' };
    }
    case 'binary':
      // No table of the system has one; bytes stay as the driver read them.
      return { value: value as FieldValue };
    case 'string':
    case 'text': {
      let text = Buffer.isBuffer(value) ? value.toString('utf8') : value instanceof Date ? value.toISOString() : String(value);
      let problem: string | undefined;
      // PostgreSQL takes no NUL in text (MySQL does): the one change a text may need, reported.
      if (text.includes('\0')) {
        text = text.replaceAll('\0', '');
        problem = 'nul-removed';
      }
      if (field.length !== undefined && [...text].length > field.length) problem = 'too-long';
      return { value: text, ...(problem ? { problem } : {}) };
    }
  }
}
