import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { InputSource } from '../models/coerce.ts';
import { fieldErrors, validationError } from '../errors.ts';
import { registerMultipartBody } from './multipart-body.ts';
import { withinDepth } from '../models/json-depth.ts';
import { AppError } from '../errors.ts';

/**
 * Bodies in JSON, application/x-www-form-urlencoded and multipart/form-data are accepted with the
 * same meaning (architecture section 4). A GET or DELETE that announces JSON but sends nothing is a
 * normal request, so an empty JSON body parses to "no body".
 */
export async function registerBodyParsers(app: FastifyInstance, limits: { bodyLimit: number }): Promise<void> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limits.bodyLimit }, (request, body, done) => {
    const bytes = body as Buffer;
    // JSON is UTF-8 (RFC 8259): invalid bytes would otherwise become U+FFFD and be stored as such.
    if (!isUtf8(bytes)) return done(new AppError('invalid-json', { reason: 'invalid-utf8' }), undefined);
    const text = bytes.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      // Deeper than any record needs: refused before recursive code (serialisers, merges) sees it.
      if (!withinDepth(value)) return done(new AppError('invalid-json', { reason: 'too-deep' }), undefined);
      done(null, value);
    });
  });
  await app.register(formbody, { bodyLimit: limits.bodyLimit });
  registerMultipartBody(app, { bodyLimit: limits.bodyLimit, maxParts: 1000 });
}

/** The body and where it came from: form values are strings and may spell null as "null". */
export function bodyOf(request: FastifyRequest): { body: unknown; source: InputSource } {
  const type = request.headers['content-type'] ?? '';
  return { body: request.body, source: /^application\/json/i.test(type) ? 'json' : 'form' };
}

/** A request's body as its members, and an error map already naming those that are not `known` (`unknown-field`). */
export function bodyFields(body: unknown, known: readonly string[]): { fields: Record<string, unknown>; errors: Record<string, string> } {
  const fields = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const errors = fieldErrors();
  for (const key of Object.keys(fields)) if (!known.includes(key)) errors[key] = 'unknown-field';
  return { fields, errors };
}

/** The members of a custom endpoint's body that has no other checks: 422 `unknown-field` for any not `known`. */
export function knownFields(body: unknown, known: readonly string[]): Record<string, unknown> {
  const { fields, errors } = bodyFields(body, known);
  if (Object.keys(errors).length) throw validationError(errors);
  return fields;
}
