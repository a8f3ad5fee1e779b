import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import { AppError } from '../errors.ts';

const METHODS = 'GET, POST, PUT, DELETE, PATCH, OPTIONS';

/** Path version segment: `/api/3/...` -> '3'; `/api` -> ''; not an API path -> undefined. */
export function apiVersionOf(url: string): string | undefined {
  const match = /^\/api(?:\/([^/?#]*))?/.exec(url);
  return match ? (match[1] ?? '') : undefined;
}

/** A step of the request pipeline; throws an AppError to stop the request. */
export type PipelineStep = (request: FastifyRequest) => void | Promise<void>;

export interface PipelineSteps {
  /** Step 2: the API switch (also applies to OPTIONS). */
  apiEnabled?: PipelineStep;
  /** Steps 3 and 4: ban check and key authentication. */
  authenticate?: PipelineStep;
  /** Step 6: the key may use this resource with this method. */
  authorize?: PipelineStep;
  /** Step 7: the key's fair use (rate limit); sets its headers on the answer. */
  limit?: (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;
  /** Whether a resource is switched on (a disabled plugin's resources do not exist). */
  available?: (resource: string) => Promise<boolean>;
  /** What the request log line says about the caller (the key's id), never a secret. */
  logContext?: (request: FastifyRequest) => Record<string, unknown> | undefined;
}

/**
 * The request pipeline of architecture section 5, in one place and in this order:
 * CORS headers -> API switch -> (preflight answered) -> ban -> key -> version -> resource -> permission -> rate limit.
 */
export async function registerPipeline(app: FastifyInstance, steps: PipelineSteps): Promise<void> {
  await app.register(cors, {
    origin: '*',
    methods: METHODS,
    exposedHeaders: ['X-Total-Count', 'Retry-After', 'Allow', 'Link', 'X-Request-Id', 'ETag', 'Idempotent-Replayed', 'Location', 'RateLimit', 'RateLimit-Policy'],
    preflightContinue: true,
    strictPreflight: false,
    maxAge: 600,
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.operational && !request.is404) return;
    await steps.apiEnabled?.(request);
    if (request.method === 'OPTIONS') {
      reply.code(204).header('Content-Length', '0').send();
      return reply;
    }
    // A public route (a signed download link) carries its own authorisation.
    if (request.routeOptions.config.public && !request.is404) return;
    await steps.authenticate?.(request);
    const version = apiVersionOf(request.url);
    if (version !== undefined && version !== '3') throw new AppError('api-version-invalid');
    // No route matched: the resource does not exist (checked after authentication, as in the spec).
    if (!request.routeOptions.url || request.is404) throw new AppError('resource-not-found');
    const resource = request.routeOptions.config.resource;
    if (resource && steps.available && !(await steps.available(resource))) throw new AppError('resource-not-found');
    await steps.authorize?.(request);
    await steps.limit?.(request, reply);
  });

  // Compressed bodies are not decoded: refused before the parsers would misread them.
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = request.headers['content-encoding'];
    if (encoding && encoding.trim().toLowerCase() !== 'identity') throw new AppError('unsupported-content-encoding');
    return payload;
  });

  app.setNotFoundHandler(async () => {
    throw new AppError('resource-not-found');
  });
}
