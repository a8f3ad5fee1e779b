import { MAX_DOUBLE_INPUT, type FieldDef, type FieldValue } from './fields.ts';
import { withinDepth } from './json-depth.ts';

/** Where input came from: form fields are strings, where "null" means null (reference behaviour). */
export type InputSource = 'json' | 'form';

export type Coerced = { ok: true; value: FieldValue } | { ok: false; reason: string };

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no', '']);

const ok = (value: FieldValue): Coerced => ({ ok: true, value });
const bad = (reason: string): Coerced => ({ ok: false, reason });

/** `YYYY-MM-DD` or `DD-MM-YYYY` (the reference's output format) to ISO, or undefined. */
export function parseDate(input: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(input) ?? /^(\d{2})-(\d{2})-(\d{4})$/.exec(input);
  if (!match) return undefined;
  const [year, month, day] = match[1]!.length === 4 ? [match[1]!, match[2]!, match[3]!] : [match[3]!, match[2]!, match[1]!];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) {
    return undefined;
  }
  return `${year}-${month}-${day}`;
}

/** `HH:MM` or `HH:MM:SS` to `HH:MM:SS`, or undefined. */
export function parseTime(input: string): string | undefined {
  const match = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(input);
  if (!match) return undefined;
  const [h, m, s = '00'] = [match[1]!, match[2]!, match[3]];
  if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59) return undefined;
  return `${h}:${m}:${s}`;
}

/** A date, or date and time (space or T, optional seconds, fraction and zone) to `YYYY-MM-DD HH:MM:SS` UTC. */
export function parseTimestamp(input: string): string | undefined {
  const match = /^([\d-]{10})(?:[ T](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(input.trim());
  if (!match) return undefined;
  const date = parseDate(match[1]!);
  const time = match[2] === undefined ? '00:00:00' : parseTime(match[2]);
  if (!date || !time) return undefined;
  if (!match[3]) return `${date} ${time}`;
  const zone = match[3] === 'Z' ? 'Z' : match[3].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const utc = new Date(`${date}T${time}${zone}`);
  return Number.isNaN(utc.getTime()) ? undefined : utc.toISOString().slice(0, 19).replace('T', ' ');
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** A string the three engines store alike: no NUL (PostgreSQL refuses it) and no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\0') && text.isWellFormed();
}

export interface CoerceOptions {
  /**
   * Whether the field's declared range applies (default true): it limits what is written, not
   * what is compared, so filters pass false (`filter[total_gt]=5e12` is a fair question).
   */
  range?: boolean;
}

/**
 * Converts one input value to the field's type. Numbers may come as numeric strings (form bodies,
 * and clients of the reference send strings everywhere); booleans accept true/1/on/yes and
 * false/0/off/no/"". An empty string means null for nullable non-text fields.
 */
export function coerceValue(field: FieldDef, raw: unknown, source: InputSource, options: CoerceOptions = {}): Coerced {
  const ranged = options.range !== false;
  if (raw === null || (source === 'form' && raw === 'null')) return ok(null);
  const textual = field.type === 'string' || field.type === 'text';
  if (raw === '' && !textual && field.type !== 'boolean') return field.nullable ? ok(null) : bad('required');
  switch (field.type) {
    case 'serial':
    case 'integer': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(n)) return bad('invalid-integer');
      if (n < INT_MIN || n > INT_MAX) return bad('out-of-range');
      if (ranged && (n < (field.min ?? (field.type === 'serial' ? 1 : INT_MIN)) || n > (field.max ?? INT_MAX))) return bad('out-of-range');
      return ok(n);
    }
    case 'double': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(n)) return bad('invalid-number');
      if (ranged && (n < (field.min ?? -MAX_DOUBLE_INPUT) || n > (field.max ?? MAX_DOUBLE_INPUT))) return bad('out-of-range');
      return ok(n);
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return ok(raw);
      if (raw === 1 || raw === 0) return ok(raw === 1);
      if (typeof raw === 'string') {
        const text = raw.trim().toLowerCase();
        if (TRUE.has(text)) return ok(true);
        if (FALSE.has(text)) return ok(false);
      }
      return bad('invalid-boolean');
    }
    case 'string':
    case 'text': {
      if (typeof raw !== 'string' && typeof raw !== 'number') return bad('invalid-string');
      const given = String(raw);
      if (!isStorableText(given)) return bad('invalid-string');
      // Before the length check (an alias may be longer than the column), and for filters too:
      // `filter[version]=pain.008.001.08` finds what is stored as `001.08`.
      const text = field.aliases && Object.hasOwn(field.aliases, given) ? field.aliases[given]! : given;
      // Any other text is not one of a vocabulary's values, however long: `invalid-value` is the
      // answer that helps (readInput lists the values with it).
      if (ranged && field.values && !field.values.includes(text)) return bad('invalid-value');
      if (field.length !== undefined && [...text].length > field.length) return bad('too-long');
      return ok(text);
    }
    case 'date': {
      const value = typeof raw === 'string' ? parseDate(raw.trim()) : undefined;
      return value ? ok(value) : bad('invalid-date');
    }
    case 'time': {
      const value = typeof raw === 'string' ? parseTime(raw.trim()) : undefined;
      return value ? ok(value) : bad('invalid-time');
    }
    case 'timestamp': {
      const value = typeof raw === 'string' ? parseTimestamp(raw) : undefined;
      return value ? ok(value) : bad('invalid-timestamp');
    }
    case 'json': {
      let value = raw;
      if (typeof raw === 'string') {
        try {
          value = JSON.parse(raw);
        } catch {
          return bad('invalid-json');
        }
      }
      if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return bad('invalid-json');
      return withinDepth(value) ? ok(value as Record<string, unknown>) : bad('too-deep');
    }
    case 'binary':
      // Bytes reach a service table through its owner's code, never through a request body.
      return bad('read-only');
  }
}
