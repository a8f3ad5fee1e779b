import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseAsyncHookHandler, onSendHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { CommitGate, withGate } from '../db/commit-gate.ts';
import type { Database } from '../db/database.ts';
import { claimKey, markWritten, releaseKey, storeAnswer, type ClaimedKey, type StoredAnswer } from '../db/idempotency-keys.ts';
import { AppError } from '../errors.ts';
import { MultipartStream } from './multipart-stream.ts';

/**
 * `Idempotency-Key` on every write (IETF draft "The Idempotency-Key HTTP Header Field", as Stripe
 * does it); docs/writes.md. The key is scoped to the API key that sent it. The first request runs,
 * and its answer is stored in the same transaction as its write (commit-gate.ts): a crash never
 * leaves one without the other. The same key with the same request replays that answer byte for
 * byte (`Idempotent-Replayed: true`) and writes nothing; with another request it is 422
 * `idempotency-key-reused`; while the first still runs, 409 `idempotency-key-in-use`. Answers the
 * handler did not produce (401, 403, 429, 413: refused before the key is read), 408/413/429 however
 * produced and 5xx answers are not stored, so the client may retry them; business refusals (4xx)
 * are. A write that committed before its answer was known keeps that answer whatever it is.
 */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The headers a replay needs besides its body. */
const KEPT_HEADERS = ['content-type', 'location', 'x-total-count', 'content-disposition'];
/**
 * A claim whose request never answered (its process died before committing) is taken over after
 * this. A request still running past it (a very slow upload) can then no longer commit its write.
 */
const LEASE_MS = 300_000;
/** Answers that are refusals of the request as sent, not outcomes: never kept, the client may retry. */
const NOT_KEPT = new Set([408, 413, 429]);

/** Whether an answer refuses the request as sent or failed (5xx, 408, 413, 429): a retry may pass, so it is never kept. */
export function retryableAnswer(status: number): boolean {
  return status >= 500 || NOT_KEPT.has(status);
}

interface Slot {
  claim: ClaimedKey;
  gate: CommitGate;
  ended: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Slot;
  }
}

export interface IdempotencyOptions {
  database: Database;
  /** Who sent the request: keys are scoped to it (`global` for the global key). */
  scopeOf(request: FastifyRequest): string | undefined;
  now(): number;
  /** Test seam: called once a request's write and answer committed, before the answer is sent. */
  afterCommit?: () => void;
}

/** Printable ASCII, 1 to 255 characters (the draft's sf-string). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

function stable(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { bytes: createHash('sha256').update(value).digest('hex') };
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, stable((value as Record<string, unknown>)[key])]));
  }
  return value;
}

/** What makes two requests "the same": method, path, query and body (a streamed body by its type and length). */
function fingerprint(request: FastifyRequest): string {
  const [path, query = ''] = request.url.split('?', 2) as [string, string?];
  const params = [...new URLSearchParams(query).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // A multipart body handed over unread (uploads, spreadsheets: MultipartStream) is a stream too.
  const streamed = request.body === undefined || request.body instanceof MultipartStream || (typeof request.body === 'object' && request.body !== null && typeof (request.body as { pipe?: unknown }).pipe === 'function');
  const body = streamed
    ? { type: String(request.headers['content-type'] ?? '').replace(/;\s*boundary=.*$/i, ''), length: request.headers['content-length'] ?? null }
    : stable(request.body);
  return createHash('sha256').update(JSON.stringify([request.method, path, params, body])).digest('hex');
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  reply.header('Idempotent-Replayed', 'true');
  return reply.send(answer.body);
}

export function registerIdempotency(app: FastifyInstance, options: IdempotencyOptions): void {
  const { database } = options;

  const claimRequestKey: preHandlerAsyncHookHandler = async (request, reply) => {
    const raw = request.headers['idempotency-key'];
    const { config } = request.routeOptions;
    // Every API write (the root's resource '' too: a batch), except public routes and those answering on the raw response.
    if (raw === undefined || !WRITES.has(request.method) || config.resource === undefined || config.public || config.answersItself) return;
    const key = Array.isArray(raw) ? undefined : raw;
    if (key === undefined || !VALID_KEY.test(key)) throw new AppError('invalid-idempotency-key');
    const scope = options.scopeOf(request) ?? 'global';
    const claim = await claimKey(database, scope, key, fingerprint(request), options.now(), LEASE_MS);
    if (claim.kind === 'replay') return replay(reply, claim.answer);
    if (claim.kind === 'reused') throw new AppError('idempotency-key-reused');
    if (claim.kind === 'in-use') throw new AppError('idempotency-key-in-use', { retryAfter: 1 });
    if (claim.kind === 'lost') throw new AppError('idempotency-key-in-use', { reason: 'answer-lost' });
    const owned: ClaimedKey = { id: claim.id, owner: claim.owner };
    const slot: Slot = { claim: owned, ended: false, gate: new CommitGate((trx) => markWritten(trx, owned)) };
    request.idempotency = slot;
  };

  const keepAnswer: onSendHookHandler = async (request, reply, payload) => {
    const slot = request.idempotency;
    if (!slot || slot.ended) return payload;
    slot.ended = true;
    const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.isBuffer(payload) ? payload : undefined;
    // A write that committed already (its request needed the database again) keeps its answer
    // whatever it is, so that a retry never writes twice; otherwise refusals of the request as
    // sent and failures are not kept, and a held write rolls back.
    const written = slot.gate.state === 'committed';
    if (!written && (retryableAnswer(reply.statusCode) || body === undefined)) {
      await forget(slot);
      return payload;
    }
    if (body === undefined) return payload;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const answer: StoredAnswer = { status: reply.statusCode, headers, body };
    try {
      if (slot.gate.state === 'held') await slot.gate.end({ write: (trx) => storeAnswer(trx, slot.claim, answer) });
      else await storeAnswer(database.kysely, slot.claim, answer);
    } catch (error) {
      if (written) {
        // The write stands; only its answer could not be kept (the key stays `written`).
        request.log.error({ err: error }, 'the answer of an idempotent write could not be stored');
        return payload;
      }
      // Neither the write nor its answer committed: the client hears so, and may retry.
      request.log.error({ err: error }, 'a write and its idempotent answer did not commit');
      await releaseKey(database.kysely, slot.claim).catch(() => {});
      const failure = new AppError('internal-error', { requestId: request.id });
      reply.code(failure.status).header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify(failure.body());
    }
    options.afterCommit?.();
    return payload;
  };

  // A request that ends without an answer sent (the client went away mid-handler) writes nothing.
  const forgetUnanswered: onResponseAsyncHookHandler = async (request) => {
    const slot = request.idempotency;
    if (slot && !slot.ended) {
      slot.ended = true;
      await forget(slot);
    }
  };

  // Only routes that write take part: a read pays nothing for it. Each such route's handler runs
  // inside its request's gate, so that its first transaction is held; the route's own hooks run
  // after the application's (its answer is kept after the serialisers ran).
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().some((method) => WRITES.has(method))) return;
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request, reply) {
      const slot = request.idempotency;
      return slot ? withGate(slot.gate, () => handler.call(this, request, reply)) : handler.call(this, request, reply);
    };
    route.preHandler = [route.preHandler ?? []].flat().concat(claimRequestKey);
    route.onSend = [route.onSend ?? []].flat().concat(keepAnswer);
    route.onResponse = [route.onResponse ?? []].flat().concat(forgetUnanswered);
  });

  /** A request whose answer is not kept: its held write rolls back and its key is free again (a released write stays `written`). */
  async function forget(slot: Slot): Promise<void> {
    await slot.gate.end({ rollback: true });
    if (slot.gate.state !== 'committed') await releaseKey(database.kysely, slot.claim);
  }
}
