import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import type { PipelineSteps } from '../../http/pipeline.ts';
import { type AccessControl, type Caller, bannedError } from './access-control.ts';
import type { RateLimiter } from './rate-limits.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/** The key of a request: `X-Auth-Token`, else `Token` (spec "Authentication" 1). */
export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-auth-token'] ?? request.headers.token;
  const value = Array.isArray(header) ? header[0] : header;
  return value && value.length <= 256 ? value : undefined;
}

/** Pipeline steps 2-4 and 6 (architecture section 5) backed by the settings and the access control state. */
export function authPipeline(access: AccessControl, limiter: RateLimiter, ctx: AppContext): PipelineSteps {
  return {
    logContext: (request) => (request.caller ? { key: request.caller.keyId ?? 'global' } : undefined),
    async apiEnabled() {
      if (!(await ctx.settings()).enable_api) throw new AppError('api-disabled');
    },
    async authenticate(request) {
      const banned = access.banRemaining(request.ip);
      if (banned) throw bannedError(banned);
      const caller = await access.authenticate(tokenOf(request), request.ip);
      if (!caller) {
        await access.recordFailure(request.ip);
        throw new AppError('auth-token-invalid');
      }
      request.caller = caller;
      request.profile = (caller.profile ?? (await ctx.settings()).api_profile) === 'facturascripts' ? 'facturascripts' : 'spec';
    },
    async authorize(request) {
      const resource = request.routeOptions.config.resource ?? '';
      if (!access.allows(request.caller!, resource, request.method)) throw new AppError('forbidden');
    },
    limit(request, reply) {
      if (request.caller) limiter.admit(request.caller, reply);
    },
  };
}
