import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const INFO_OR_MORE = new Set(['trace', 'debug', 'info']);

/** A client's request id is taken as given when it looks like one: short, without spaces or quotes. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The id of a request: the client's `X-Request-Id` when sane (so a caller can follow its request
 * through our logs), else a new UUID. Fastify's `genReqId`.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
}

/** A URL without its query string (filters may hold values of hidden fields). */
const pathOf = (url: string) => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};

/**
 * Every answer carries `X-Request-Id`, and every request gives one structured log line at info
 * level: id, method, path (never the query string: filters may hold values of hidden fields),
 * status, duration and the key's id from `context` (never a token or a body); at debug, one more
 * as it is read. LOG_LEVEL=warn and above silences them; errors are logged with their stack by the
 * error handler.
 */
export function registerRequestLog(app: FastifyInstance, context: (request: FastifyRequest) => Record<string, unknown> | undefined): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  if (!INFO_OR_MORE.has(app.log.level)) return;
  // At debug, a line as each request is read too: a request that got no answer (a connection cut,
  // a process killed) shows as read and never answered.
  if (app.log.level === 'debug' || app.log.level === 'trace') {
    app.addHook('onRequest', (request, _reply, done) => {
      app.log.debug({ reqId: request.id, method: request.method, path: pathOf(request.url) }, 'request received');
      done();
    });
  }
  app.addHook('onResponse', async (request, reply) => {
    app.log.info({
      reqId: request.id,
      method: request.method,
      path: pathOf(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...context(request),
    }, 'request');
  });
}
