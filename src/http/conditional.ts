import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import type { ModelStore } from '../db/model-store.ts';
import { withPrecondition } from '../db/preconditions.ts';
import { AppError } from '../errors.ts';
import type { Model } from '../models/define-model.ts';
import type { FieldValue } from '../models/fields.ts';
import { etagOf, matches, recordPartOf, tagsOf } from './etag.ts';

/**
 * Conditional requests (RFC 9110, docs/writes.md). A GET of one record answers its `ETag`, and
 * `If-None-Match` with a current tag gets 304 without a body. A write of one record with `If-Match`
 * (PUT, PATCH, DELETE, `editar*`, `pagar*`) gets 412 `precondition-failed` with the current `ETag`
 * when the record changed since that tag, and writes nothing. The tag is checked once before the
 * handler, and again where the write locks the record (db/preconditions.ts), so no other write can
 * come in between. Without `If-Match` nothing changes.
 */

/** Sets a record's ETag; answers 304 (true) when `If-None-Match` names it. */
export async function answerConditionalGet(database: Database, request: FastifyRequest, reply: FastifyReply, model: Model, record: Record<string, unknown>, view = ''): Promise<boolean> {
  const etag = await etagOf(database.kysely, model, record, request, view);
  reply.header('ETag', etag);
  const tags = tagsOf(request.headers['if-none-match'], true);
  if (!tags || !matches(tags, etag)) return false;
  reply.code(304).send();
  return true;
}

/** Runs a write of `model`'s record `id` under the request's `If-Match`, if it sent one. */
export async function conditionalWrite<T>(store: ModelStore, request: FastifyRequest, model: Model, id: FieldValue, write: () => Promise<T>): Promise<T> {
  const tags = tagsOf(request.headers['if-match'], false);
  if (!tags) return write();
  const precondition = {
    model,
    id,
    async check(db: Parameters<typeof etagOf>[0]) {
      const current = await store.get(model, id, db);
      if (!current) throw new AppError('record-not-found');
      const etag = await etagOf(db, model, current, request);
      // A tag read with `fields` or `expand` names the same record version: its record part is compared.
      if (!matches(tags.map(recordPartOf), etag)) throw new AppError('precondition-failed', { etag });
    },
  };
  await precondition.check(store.database.kysely);
  return withPrecondition(precondition, write);
}
