import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import { AppError } from '../errors.ts';
import { whenKnown, type MaybePromise } from '../when-known.ts';
import { otherMethodsOf } from './other-methods.ts';

const METHODS = 'GET, POST, PUT, DELETE, PATCH, OPTIONS';

/** Path version segment: `/api/3/...` -> '3'; `/api` -> ''; not an API path -> undefined. */
export function apiVersionOf(url: string): string | undefined {
  const match = /^\/api(?:\/([^/?#]*))?/.exec(url);
  return match ? (match[1] ?? '') : undefined;
}

/** A step of the request pipeline; throws an AppError to stop the request. */
export type PipelineStep = (request: FastifyRequest) => MaybePromise<void>;

export interface PipelineSteps {
  /** Step 2: the API switch (also applies to OPTIONS). */
  apiEnabled?: PipelineStep;
  /** Steps 3 and 4: ban check and key authentication. */
  authenticate?: PipelineStep;
  /** Step 6: the key may use this resource with this method. */
  authorize?: PipelineStep;
  /** Step 7: the key's fair use (rate limit); sets its headers on the answer. */
  limit?: (request: FastifyRequest, reply: FastifyReply) => MaybePromise<void>;
  /** Whether a resource is switched on (a disabled plugin's resources do not exist). */
  available?: (resource: string) => MaybePromise<boolean>;
  /** What the request log line says about the caller (the key's id), never a secret. */
  logContext?: (request: FastifyRequest) => Record<string, unknown> | undefined;
}

/** The canonical resource a request is for: its route's, or the path's when the route is a 405 (other-methods.ts). */
export function resourceOf(request: FastifyRequest): string | undefined {
  return request.notAllowed?.resource ?? request.routeOptions.config.resource;
}

/** What a stage tells the pipeline: go on (undefined), let the request through now, or it was answered. */
const PASS = 1;
const ANSWERED = 2;
type Verdict = undefined | typeof PASS | typeof ANSWERED;
type Stage = (request: FastifyRequest, reply: FastifyReply) => MaybePromise<Verdict | void>;

/**
 * The request pipeline of architecture section 5, in one place and in this order:
 * CORS headers -> API switch -> (preflight answered) -> ban -> key -> version -> resource -> permission -> rate limit.
 * The stages run synchronously while what they read is in memory, and wait only on a stage that
 * has to load (a stale cache, a failed key's incident): this hook runs before every request.
 */
export async function registerPipeline(app: FastifyInstance, steps: PipelineSteps): Promise<void> {
  const otherMethods = otherMethodsOf(app);
  await app.register(cors, {
    origin: '*',
    methods: METHODS,
    exposedHeaders: ['X-Total-Count', 'Retry-After', 'Allow', 'Link', 'X-Request-Id', 'ETag', 'Idempotent-Replayed', 'Location', 'RateLimit', 'RateLimit-Policy'],
    preflightContinue: true,
    strictPreflight: false,
    maxAge: 600,
  });

  const stages: Stage[] = [
    (request) => (request.routeOptions.config.operational && !request.is404 ? PASS : undefined),
    (request) => steps.apiEnabled?.(request),
    (request, reply) => {
      if (request.method !== 'OPTIONS') return;
      reply.code(204).header('Content-Length', '0').send();
      return ANSWERED;
    },
    // A public route (a signed download link) carries its own authorisation.
    (request) => (request.routeOptions.config.public && !request.is404 ? PASS : undefined),
    (request) => steps.authenticate?.(request),
    (request) => {
      const version = apiVersionOf(request.url);
      if (version !== undefined && version !== '3') throw new AppError('api-version-invalid');
      if (request.routeOptions.url && !request.is404) return;
      // No route matched: a resource's path with another method is 405 (answered by the not-found
      // handler once the key may use the resource), else the resource does not exist (checked
      // after authentication, as in the spec).
      request.notAllowed = otherMethods.of(request);
      if (!request.notAllowed) throw new AppError('resource-not-found');
    },
    (request) => {
      const resource = resourceOf(request);
      if (!resource || !steps.available) return;
      return whenKnown(steps.available(resource), (available) => {
        if (!available) throw new AppError('resource-not-found');
      });
    },
    (request) => steps.authorize?.(request),
    (request, reply) => (request.routeOptions.config.unmetered ? undefined : steps.limit?.(request, reply)),
  ];
  const run = (request: FastifyRequest, reply: FastifyReply, from: number): MaybePromise<Verdict | void> => {
    for (let i = from; i < stages.length; i++) {
      const verdict = stages[i]!(request, reply);
      if (verdict instanceof Promise) return verdict.then((settled) => settled ?? run(request, reply, i + 1));
      if (verdict) return verdict;
    }
  };
  app.addHook('onRequest', (request, reply, done) => {
    let verdict: MaybePromise<Verdict | void>;
    try {
      verdict = run(request, reply, 0);
    } catch (error) {
      return done(error as Error);
    }
    // An answered request must not go on (Fastify: a callback hook that replied does not call done).
    if (verdict instanceof Promise) verdict.then((settled) => settled !== ANSWERED && done(), done);
    else if (verdict !== ANSWERED) done();
  });

  // Compressed bodies are not decoded: refused before the parsers would misread them.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding && encoding.trim().toLowerCase() !== 'identity') done(new AppError('unsupported-content-encoding'));
    else done(null, payload);
  });

  app.setNotFoundHandler(async (request) => {
    if (request.notAllowed) throw new AppError('method-not-allowed', { allow: request.notAllowed.allow });
    throw new AppError('resource-not-found');
  });
}
