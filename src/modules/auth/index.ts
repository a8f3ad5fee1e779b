import type { Module } from '../../module.ts';
import { AccessControl } from './access-control.ts';
import { apiAccessModel, apiKeyModel } from './auth-models.ts';
import { watchKeyChanges } from './auth-events.ts';
import { authPipeline } from './auth-pipeline.ts';
import { incidentModel } from './internal-models.ts';
import { registerKeyRules } from './key-rules.ts';

export { apiAccessModel, apiKeyModel, generateToken, hashToken } from './auth-models.ts';
export { createInitialKey } from './initial-key.ts';
export { BAN_THRESHOLD, BAN_WINDOW_MS } from './access-control.ts';

/**
 * API keys, access rules (also replaced as a whole: key-rules.ts) and the IP ban: the pipeline's API
 * switch, key and permission steps, and a background tick that shares bans between instances and writes key activity.
 */
export function authModule(): Module {
  let access: AccessControl | undefined;
  return {
    name: 'auth',
    models: [apiKeyModel, apiAccessModel, incidentModel],
    setup(ctx) {
      access = new AccessControl(ctx);
      Object.assign(ctx.pipeline, authPipeline(access, ctx));
      watchKeyChanges(ctx);
    },
    register(server, ctx) {
      registerKeyRules(server, ctx, access!);
    },
    jobs: [{ name: 'access', intervalMs: (ctx) => ctx.config.stateRefreshMs, run: () => access!.tick() }],
    async stop() {
      await access?.flushActivity();
    },
  };
}
