import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { resourceOf, type PipelineSteps } from '../../http/pipeline.ts';
import { type AccessControl, type Caller, bannedError } from './access-control.ts';
import type { RateLimiter } from './rate-limits.ts';
import { whenKnown, type MaybePromise } from '../../when-known.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/**
 * The key of a request: `X-Auth-Token`, else `Token` (spec "Authentication" 1), else
 * `Authorization: Bearer <key>` (what MCP clients and most HTTP tools send).
 */
export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-auth-token'] ?? request.headers.token ?? bearerOf(request.headers.authorization);
  const value = Array.isArray(header) ? header[0] : header;
  return value && value.length <= 256 ? value : undefined;
}

function bearerOf(authorization: string | string[] | undefined): string | undefined {
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match ? match[1] : undefined;
}

/** Pipeline steps 2-4 and 6 (architecture section 5) backed by the settings and the access control state. */
export function authPipeline(access: AccessControl, limiter: RateLimiter, ctx: AppContext): PipelineSteps {
  // Synchronous while the settings are current (every request reads them).
  const settings = () => ctx.currentSettings() ?? ctx.settings();
  const admit = (request: FastifyRequest, caller: Caller | undefined): MaybePromise<void> => {
    if (!caller) {
      return access.recordFailure(request.ip).then(() => {
        throw new AppError('auth-token-invalid');
      });
    }
    request.caller = caller;
    // The key's own profile, else the installation's.
    return whenKnown(caller.profile ?? whenKnown(settings(), (current) => current.api_profile), (profile) => {
      request.profile = profile === 'facturascripts' ? 'facturascripts' : 'spec';
    });
  };
  return {
    logContext: (request) => (request.caller ? { key: request.caller.keyId ?? 'global' } : undefined),
    apiEnabled() {
      return whenKnown(settings(), (current) => {
        if (!current.enable_api) throw new AppError('api-disabled');
      });
    },
    authenticate(request) {
      const banned = access.banRemaining(request.ip);
      if (banned) throw bannedError(banned);
      return whenKnown(access.authenticate(tokenOf(request), request.ip), (caller) => admit(request, caller));
    },
    authorize(request) {
      const resource = resourceOf(request) ?? '';
      const caller = request.caller!;
      if (!access.allows(caller, resource, request.method)) throw new AppError('forbidden');
      request.mayUse = (other, method) => access.allows(caller, other, method);
    },
    limit(request, reply) {
      if (request.caller) limiter.admit(request.caller, reply);
    },
  };
}
