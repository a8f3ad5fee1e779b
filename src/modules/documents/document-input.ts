import { AppError, validationError, fieldErrors } from '../../errors.ts';
import { coerceValue, parseDate, parseTime, type InputSource } from '../../models/coerce.ts';
import type { Values } from '../../models/define-model.ts';
import type { DocumentType } from './document-types.ts';
import { parseLines, readLine } from './document-lines.ts';

/** Header columns the service keeps, besides the read-only ones: never taken from a request. */
const SERVICE_OWNED = new Set(['idestado_ant', 'idasiento']);

export interface DocumentInput {
  /** Typed header columns sent (besides fecha/hora/pagada/lineas). */
  header: Values;
  fecha?: string;
  hora?: string;
  /** Invoices: mark the receipts paid after creation. */
  pagada?: boolean;
  /** Typed lines, when `lineas` was sent. */
  lines?: Values[];
}

/**
 * Reads a document request (creation endpoints, editing endpoints): header columns, `fecha`/`hora`
 * in either date format, `pagada`, and `lineas` (array or JSON string). Every bad field is named
 * in one 422; a malformed date is 400 `invalid-date`, malformed `lineas` 400 `invalid-lines`.
 */
export function readDocumentInput(type: DocumentType, body: unknown, source: InputSource, editing: boolean): DocumentInput {
  if (body === undefined || body === null) throw new AppError('no-data');
  if (typeof body !== 'object' || Array.isArray(body)) throw new AppError('invalid-body');
  const input: DocumentInput = { header: {} };
  const errors = fieldErrors();
  // A new document's subject code longer than any code names no customer or supplier: not found,
  // as a short unknown code is (when the rest of the request is valid).
  let unknownSubject = false;
  for (const [name, raw] of Object.entries(body as Record<string, unknown>)) {
    if (name === 'lineas') {
      if (raw === undefined) continue;
      input.lines = parseLines(raw).map((line, index) => readLine(type, line, index, editing));
      continue;
    }
    if (name === 'fecha' || name === 'hora') {
      if (raw === undefined || raw === null || raw === '') continue;
      const value = typeof raw === 'string' ? (name === 'fecha' ? parseDate(raw.trim()) : parseTime(raw.trim())) : undefined;
      if (!value) throw new AppError('invalid-date', { field: name });
      input[name] = value;
      continue;
    }
    const field = Object.hasOwn(type.header.fields, name) ? type.header.fields[name] : undefined;
    if (name === 'pagada' && type.invoice) {
      const coerced = coerceValue(type.header.fields.pagada!, raw, source);
      if (coerced.ok) input.pagada = coerced.value === true;
      else errors[name] = coerced.reason;
      continue;
    }
    if (!field) {
      errors[name] = 'unknown-field';
      continue;
    }
    if (name === type.key || SERVICE_OWNED.has(name) || field.readOnly) {
      errors[name] = 'read-only';
      continue;
    }
    const coerced = coerceValue(field, raw, source);
    if (coerced.ok) input.header[name] = coerced.value;
    else if (name === type.subject && !editing && coerced.reason === 'too-long') unknownSubject = true;
    else errors[name] = coerced.reason;
  }
  const subject = input.header[type.subject];
  if (!editing && !unknownSubject && (typeof subject !== 'string' || subject === '')) errors[type.subject] = 'required';
  if (Object.keys(errors).length) throw validationError(errors);
  if (unknownSubject) throw new AppError(type.side === 'sales' ? 'customer-not-found' : 'supplier-not-found');
  return input;
}
