import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { createCore, type Core, type CoreOptions } from './core.ts';
import { registerBodyParsers } from './http/body.ts';
import { clientErrorHandler, frameworkErrors } from './http/framework-errors.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { registerModelRoutes } from './http/model-routes.ts';
import { registerPipeline } from './http/pipeline.ts';
import { registerRootRoute } from './http/root-route.ts';
import { authPipeline } from './modules/auth/auth-pipeline.ts';
import { registerDocumentRoutes } from './modules/documents/document-routes.ts';
import { registerDocumentWriters } from './modules/documents/document-writers.ts';
import { startOverdueRefresh } from './modules/documents/overdue-refresh.ts';

export interface CreateAppOptions extends Omit<CoreOptions, 'log'> {
  /** Fastify logger option; defaults to pino at config.logLevel. */
  logger?: boolean | Record<string, unknown>;
}

export interface App extends Omit<Core, 'ctx'> {
  server: FastifyInstance;
  ctx: AppContext;
}

/** The composition root: core (database, registry, store, events, access) plus HTTP. Not yet listening. */
export async function createApp(options: CreateAppOptions): Promise<App> {
  const { config } = options;
  const server = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    // A hop count is valid at run time (Fastify docs) though missing from its types.
    trustProxy: config.trustProxy as boolean | string,
    routerOptions: { ignoreTrailingSlash: true },
    // Per-request log lines only at debug level: they cost more than a whole cached read.
    logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
    clientErrorHandler,
    frameworkErrors,
  });
  let core: Core | undefined;
  try {
    core = await createCore({ ...options, log: server.log });
    const { ctx, access } = core;
    registerErrorHandler(server);
    await registerBodyParsers(server, { bodyLimit: config.bodyLimit });
    await registerPipeline(server, ctx.registry.get('apikey') ? authPipeline(access) : {});
    registerRootRoute(server, ctx);
    if (!options.models) registerDocumentWriters(ctx);
    for (const model of ctx.registry.resources()) registerModelRoutes(server, ctx, model);
    if (!options.models) registerDocumentRoutes(server, ctx);
    await server.ready();
    const stopOverdue = options.models ? undefined : startOverdueRefresh(ctx, 60_000);
    const started = core;
    return {
      ...started,
      server,
      async close() {
        await server.close();
        await stopOverdue?.();
        await started.close();
      },
    };
  } catch (error) {
    await server.close().catch(() => {});
    await core?.close().catch(() => {});
    throw error;
  }
}
