import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../app-context.ts';

/** How long `/ready` waits for the database before it answers 503. */
const DATABASE_TIMEOUT_MS = 2000;

/**
 * `GET /health` (the process answers) and `GET /ready` (it can serve: started, so the schema and
 * migrations are done; the database answers; not shutting down), outside `/api/3` and without a
 * key or the API switch, for load balancers and orchestrators (docs/deploy.md).
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext, closing: () => boolean): void {
  const config = { operational: true };
  app.get('/health', { config }, async () => ({ status: 'ok' }));
  app.get('/ready', { config }, async (_request, reply) => {
    if (closing()) return reply.code(503).send({ status: 'unavailable', reason: 'shutting-down' });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), DATABASE_TIMEOUT_MS)));
    try {
      await Promise.race([sql`SELECT 1`.execute(ctx.database.kysely), timeout]);
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database' });
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ready' };
  });
}
