import type { Module } from '../../module.ts';
import { AccessControl } from './access-control.ts';
import { apiAccessModel, apiKeyModel } from './auth-models.ts';
import { watchKeyChanges } from './auth-events.ts';
import { authPipeline } from './auth-pipeline.ts';
import { incidentModel, rateWindowModel } from './internal-models.ts';
import { RateLimiter } from './rate-limits.ts';
import { registerKeyRules } from './key-rules.ts';

export { apiAccessModel, apiKeyModel, generateToken, hashToken } from './auth-models.ts';
export { createInitialKey } from './initial-key.ts';
export { adoptImportedKeys, ownKeys, type OwnKeys } from './imported-keys.ts';
export { BAN_THRESHOLD, BAN_WINDOW_MS } from './access-control.ts';

/**
 * API keys, access rules (also replaced as a whole: key-rules.ts), the IP ban and fair use per key:
 * the pipeline's API switch, key, permission and rate-limit steps, and background ticks that share
 * bans and request counts between instances and write key activity.
 */
export function authModule(): Module {
  let access: AccessControl | undefined;
  let limiter: RateLimiter | undefined;
  return {
    name: 'auth',
    models: [apiKeyModel, apiAccessModel, incidentModel, rateWindowModel],
    setup(ctx) {
      access = new AccessControl(ctx);
      limiter = new RateLimiter(ctx);
      Object.assign(ctx.pipeline, authPipeline(access, limiter, ctx));
      watchKeyChanges(ctx);
    },
    register(server, ctx) {
      registerKeyRules(server, ctx, access!);
    },
    jobs: [
      { name: 'access', intervalMs: (ctx) => ctx.config.stateRefreshMs, run: () => access!.tick() },
      { name: 'rate-limits', intervalMs: (ctx) => ctx.config.stateRefreshMs, run: () => limiter!.sync() },
    ],
    async stop() {
      await access?.flushActivity();
    },
  };
}
