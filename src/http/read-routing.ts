import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fromReplicas } from '../db/read-replicas.ts';

const READS = new Set(['GET', 'HEAD']);

/**
 * Which requests may read from the replicas (src/db/read-replicas.ts): GET and HEAD requests but
 * public ones (signed links), except those of a caller (a key, else an address) that wrote within `readYourWritesMs` through
 * this instance, so that a client reads what it has just written. Other instances do not see the
 * write: behind a load balancer, route a key to one instance (docs/deploy.md) or rely on
 * `READ_REPLICA_MAX_LAG_MS` being shorter than a client's turn-around.
 */
export function registerReadRouting(app: FastifyInstance, readYourWritesMs: number, callerOf: (request: FastifyRequest) => string): void {
  const wroteUntil = new Map<string, number>();
  const wrote = (request: FastifyRequest) => {
    const now = Date.now();
    if (wroteUntil.size > 10_000) for (const [caller, until] of wroteUntil) if (until <= now) wroteUntil.delete(caller);
    wroteUntil.set(callerOf(request), now + readYourWritesMs);
  };
  // A callback hook: the handler runs inside `done`, hence inside the scope it was given.
  app.addHook('preHandler', (request, _reply, done) => {
    if (!READS.has(request.method)) {
      wrote(request);
      return done();
    }
    if ((wroteUntil.get(callerOf(request)) ?? 0) > Date.now()) return done();
    // A public route (a signed download link) has no key to tie it to its uploader's writes.
    if (request.routeOptions.config.public) return done();
    fromReplicas(done);
  });
  // Again once the write has finished: the window runs from its commit.
  app.addHook('onResponse', (request, _reply, done) => {
    if (!READS.has(request.method) && request.method !== 'OPTIONS') wrote(request);
    done();
  });
}
