import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../app-context.ts';
import { onPrimary } from '../db/read-replicas.ts';

/** How long `/ready` waits for the database before it answers 503. */
const DATABASE_TIMEOUT_MS = 2000;

/**
 * `GET /health` (the process answers) and `GET /ready` (it can serve: started, so the schema and
 * migrations are done; the database answers; not shutting down), outside `/api/3` and without a
 * key or the API switch, for load balancers and orchestrators (docs/deploy.md). With read
 * replicas, `/ready` also counts the usable ones.
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext, closing: () => boolean): void {
  const config = { operational: true };
  app.get('/health', { config }, async () => ({ status: 'ok' }));
  app.get('/ready', { config }, async (_request, reply) => {
    if (closing()) return reply.code(503).send({ status: 'unavailable', reason: 'shutting-down' });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), DATABASE_TIMEOUT_MS)));
    try {
      // The primary: replicas are optional (reads fall back to it), so they never make the instance unready.
      await Promise.race([onPrimary(() => sql`SELECT 1`.execute(ctx.database.kysely)), timeout]);
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database' });
    } finally {
      clearTimeout(timer);
    }
    const replicas = ctx.database.replicas?.status();
    // Counts only: this route needs no key, so it names no server.
    return { status: 'ready', ...(replicas ? { replicas: { usable: replicas.filter((replica) => replica.usable).length, configured: replicas.length } } : {}) };
  });
}
