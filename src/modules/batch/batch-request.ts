import { AppError, validationError } from '../../errors.ts';
import { bodyFields } from '../../http/body.ts';

/** The most operations one batch may carry. */
export const MAX_OPERATIONS = 100;

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const WRITES = new Set(['POST', 'PUT', 'PATCH']);
/** The request headers an operation may set: its own write conditions and idempotency. */
const HEADERS = new Set(['idempotency-key', 'if-match', 'if-none-match']);
const MAX_PATH = 2048;

export interface BatchOperation {
  method: string;
  path: string;
  body?: unknown;
  headers: Record<string, string>;
}

export interface BatchRequest {
  atomic: boolean;
  operations: BatchOperation[];
}

/** Whether a decoded path names the batch endpoint itself (a batch cannot hold a batch). */
const isBatch = (path: string) => /^\/api\/3\/+batch\/*$/i.test(path);

/**
 * What is wrong with an operation's path, if anything. The router decodes and the URL parser
 * normalises (`%2e%2e`, `\\`), so the path is judged as they will read it: it must be already
 * normal (nothing for the parser to resolve), under `/api/3/` once decoded, and not the batch.
 */
function pathProblem(path: string): string | undefined {
  if (path.length > MAX_PATH || /[\s#\\]/.test(path)) return 'invalid-path';
  const [raw] = path.split('?', 1) as [string];
  let normalised: string;
  let decoded: string;
  try {
    normalised = decodeURIComponent(new URL(path, 'http://batch.invalid').pathname);
    decoded = decodeURIComponent(raw);
  } catch {
    return 'invalid-path';
  }
  if (normalised !== decoded || !decoded.startsWith('/api/3/') || /(^|\/)\.\.?(\/|$)/.test(decoded) || /%2f|%5c/i.test(raw)) return 'invalid-path';
  return isBatch(decoded) ? 'nested-batch' : undefined;
}

/**
 * Reads the body of `POST /api/3/batch` (docs/batches.md): `{ atomic?, operations: [{ method, path,
 * body?, headers? }] }`. Every problem is a 422 naming `operations.<index>.<member>`, and nothing
 * runs: a batch goes as sent or not at all.
 */
export function readBatchRequest(body: unknown): BatchRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AppError('invalid-body');
  const { fields, errors } = bodyFields(body, ['atomic', 'operations']);
  if (fields.atomic !== undefined && typeof fields.atomic !== 'boolean') errors.atomic = 'invalid-value';
  const list = fields.operations;
  if (!Array.isArray(list) || !list.length) errors.operations = 'required';
  else if (list.length > MAX_OPERATIONS) throw new AppError('validation-failed', { fields: { operations: 'too-many' }, max: MAX_OPERATIONS });
  const operations: BatchOperation[] = [];
  for (const [index, item] of (Array.isArray(list) ? list : []).entries()) {
    const at = `operations.${index}`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      errors[at] = 'invalid-value';
      continue;
    }
    const { fields: op, errors: opErrors } = bodyFields(item, ['method', 'path', 'body', 'headers']);
    for (const [key, reason] of Object.entries(opErrors)) errors[`${at}.${key}`] = reason;
    const method = typeof op.method === 'string' ? op.method.toUpperCase() : '';
    if (!METHODS.has(method)) errors[`${at}.method`] = 'invalid-value';
    const path = op.path;
    const checked = typeof path === 'string' ? pathProblem(path) : 'invalid-path';
    if (checked) errors[`${at}.path`] = checked;
    if (op.body !== undefined && op.body !== null && !WRITES.has(method)) errors[`${at}.body`] = 'not-allowed';
    const headers: Record<string, string> = {};
    if (op.headers !== undefined) {
      if (!op.headers || typeof op.headers !== 'object' || Array.isArray(op.headers)) errors[`${at}.headers`] = 'invalid-value';
      else {
        for (const [name, value] of Object.entries(op.headers as Record<string, unknown>)) {
          const lower = name.toLowerCase();
          if (!HEADERS.has(lower)) errors[`${at}.headers.${name}`] = 'not-allowed';
          else if (typeof value !== 'string' || !/^[\x20-\x7e]{1,255}$/.test(value)) errors[`${at}.headers.${name}`] = 'invalid-value';
          else headers[lower] = value;
        }
      }
    }
    operations.push({ method, path: String(path), body: op.body ?? undefined, headers });
  }
  if (Object.keys(errors).length) throw validationError(errors);
  return { atomic: fields.atomic === true, operations };
}
