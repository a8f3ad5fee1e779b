import { AppError, validationError, fieldErrors } from '../errors.ts';
import { coerceValue, type InputSource } from './coerce.ts';
import type { Model, Values } from './define-model.ts';

export interface ReadOptions {
  /** Fields that are not columns are skipped instead of refused (the established system's reading). */
  ignoreUnknown?: boolean;
}

/** Why a field that is not a column is refused: the client can choose the lenient profile. */
export const UNKNOWN_FIELD_HINT = 'fields that are not columns of the model are refused; keys with the facturascripts profile have them ignored';

/**
 * Turns a request body into typed model values, or fails with 422 naming every offending field
 * (unknown, read-only, wrong type, too long; `accepted` lists the values of a field whose value is not
 * one of them). Required fields are checked later, at save time,
 * after generated values and hooks have had their say.
 */
export function readInput(model: Model, body: unknown, source: InputSource, mode: 'create' | 'update', id?: unknown, options: ReadOptions = {}): Values {
  if (body === undefined || body === null) throw new AppError('no-data');
  if (typeof body !== 'object' || Array.isArray(body)) throw new AppError('invalid-body');
  const entries = Object.entries(body as Record<string, unknown>);
  if (!entries.length) throw new AppError('no-data');
  const values: Values = {};
  const errors = fieldErrors();
  const accepted: Record<string, string[]> = {};
  for (const [name, raw] of entries) {
    const field = Object.hasOwn(model.fields, name) ? model.fields[name] : undefined;
    if (!field) {
      if (!options.ignoreUnknown) errors[name] = 'unknown-field';
      continue;
    }
    // Hidden fields may be written when the model allows it (a password, stored hashed); never read.
    if (field.readOnly) {
      errors[name] = 'read-only';
      continue;
    }
    const coerced = coerceValue(field, raw, source);
    if (!coerced.ok) {
      errors[name] = coerced.reason;
      // The vocabulary comes with the refusal: the client corrects it without asking the schema.
      if (coerced.reason === 'invalid-value' && field.values) accepted[name] = [...field.values];
      continue;
    }
    if (mode === 'update' && name === model.primaryKey) {
      if (String(coerced.value) !== String(id)) errors[name] = 'read-only';
      continue;
    }
    values[name] = coerced.value;
  }
  const details = Object.keys(accepted).length ? { accepted } : {};
  if (Object.values(errors).includes('unknown-field')) throw validationError(errors, { hint: UNKNOWN_FIELD_HINT, ...details });
  if (Object.keys(errors).length) throw validationError(errors, details);
  return values;
}
