import type { FastifyInstance, FastifyRequest } from 'fastify';
import { outsideGate } from '../db/commit-gate.ts';

/**
 * What an inner request answered: status, the headers a caller needs, the body (JSON parsed, text
 * as text, undefined for other bytes) and its bytes as they came.
 */
export interface InnerAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  bytes: Buffer;
}

/** The answer headers worth passing on from an inner request. */
const PASSED_ON = ['location', 'etag', 'x-total-count', 'idempotent-replayed', 'retry-after', 'content-type', 'content-disposition'];

const CREDENTIALS = ['x-auth-token', 'token', 'authorization'];

export interface InnerRequest {
  method: string;
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
}

const TEXT = /^(text\/|application\/(xml|csv)|[^;]*\+xml)/i;

/**
 * Runs requests against the API as `request`'s own key would, from its address: each goes through
 * the whole pipeline as a request of its own (API switch, ban, key, rules, rate limit, validation,
 * idempotency), so that nothing in the caller (MCP tools, batches) decides access. Inner requests
 * run outside the outer request's commit gate: an idempotency key on the outer request must not
 * hold the inner requests' transactions.
 */
export function injectAs(app: FastifyInstance, request: FastifyRequest) {
  const credentials: Record<string, string> = {};
  for (const name of CREDENTIALS) {
    const value = request.headers[name];
    if (typeof value === 'string') credentials[name] = value;
  }
  return async (inner: InnerRequest): Promise<InnerAnswer> => {
    const hasBody = inner.body !== undefined && inner.body !== null;
    const answer = await outsideGate(() => app.inject({
      method: inner.method as 'GET', url: inner.url, remoteAddress: request.ip,
      headers: { ...(inner.headers ?? {}), ...credentials, accept: 'application/json', ...(hasBody ? { 'content-type': 'application/json' } : {}) },
      ...(hasBody ? { payload: JSON.stringify(inner.body) } : {}),
    }));
    const headers: Record<string, string> = {};
    for (const name of PASSED_ON) {
      const value = answer.headers[name];
      if (value !== undefined) headers[name] = String(value);
    }
    const type = headers['content-type'] ?? '';
    const body: unknown = !answer.body ? undefined : type.includes('json') ? JSON.parse(answer.body) : TEXT.test(type) ? answer.body : undefined;
    return { status: answer.statusCode, headers, body, bytes: answer.rawPayload };
  };
}
