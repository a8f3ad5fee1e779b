import { validationError, fieldErrors } from '../../errors.ts';
import { bodyFields } from '../../http/body.ts';
import { parseDate } from '../../models/coerce.ts';

type Kind = 'date' | 'amount' | 'text' | 'ids';

/**
 * The body of a banking operation (`cobrarRemesa`, `devolverReciboRemesa`, `conciliarMovimiento`):
 * each member read as its kind (a date in either format, an amount of at most two decimals and not
 * negative, a text of at most 100 characters, a list of positive integer ids); anything unknown or
 * malformed is 422 naming it, before anything is written. Absent or empty members are left out.
 */
export function operationInput(body: unknown, kinds: Record<string, Kind>): Record<string, unknown> {
  const { fields, errors } = bodyFields(body, Object.keys(kinds));
  const read: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(kinds)) {
    const raw = fields[name];
    if (raw === undefined || raw === null || raw === '') continue;
    const value = readAs(kind, raw);
    if (value === undefined) errors[name] = kind === 'date' ? 'invalid-date' : kind === 'amount' ? 'invalid-amount' : kind === 'ids' ? 'invalid-ids' : 'invalid-text';
    else read[name] = value;
  }
  if (Object.keys(errors).length) throw validationError({ ...fieldErrors(), ...errors });
  return read;
}

function readAs(kind: Kind, raw: unknown): unknown {
  if (kind === 'date') return typeof raw === 'string' ? parseDate(raw.trim()) : undefined;
  if (kind === 'text') return typeof raw === 'string' && raw.length <= 100 ? raw.trim() : undefined;
  if (kind === 'ids') {
    if (!Array.isArray(raw) || !raw.length || raw.length > 1000) return undefined;
    const ids = raw.map(Number);
    return ids.every((id) => Number.isSafeInteger(id) && id > 0) && new Set(ids).size === ids.length ? ids : undefined;
  }
  // Not negative, at most two decimals, as written (a number's shortest form, or the text given).
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  return /^\d+(\.\d{1,2})?$/.test(text) && Number(text) <= 999_999_999.99 ? Number(text) : undefined;
}
