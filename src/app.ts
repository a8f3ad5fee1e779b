import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { createCore, type Core, type CoreOptions } from './core.ts';
import { registerAdminConsole } from './http/admin-console.ts';
import { registerBodyParsers } from './http/body.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { clientErrorHandler, frameworkErrors } from './http/framework-errors.ts';
import { registerModelRoutes } from './http/model-routes.ts';
import { registerPipeline } from './http/pipeline.ts';
import { registerProfileSerializer } from './http/profile-serializer.ts';
import { registerLazySerializers } from './http/lazy-serializers.ts';
import { registerHealthRoutes } from './http/health-routes.ts';
import { connectionDrain, DRAIN_GRACE_MS } from './http/connection-drain.ts';
import { AppError } from './errors.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { pruneKeys } from './db/idempotency-keys.ts';
import { registerRequestLog, requestIdOf } from './http/request-log.ts';
import { registerReadRouting } from './http/read-routing.ts';
import { registerRootRoute } from './http/root-route.ts';
import { startJobs, type Jobs } from './jobs.ts';
import type { Job } from './module.ts';
import { installationModules } from './plugins/installation-modules.ts';

export interface CreateAppOptions extends Omit<CoreOptions, 'log' | 'modules'> {
  /** The installation's modules: the core's and the installed plugins', unless a test picks its own. */
  modules?: CoreOptions['modules'];
  /** Fastify logger option; defaults to pino at config.logLevel. */
  logger?: boolean | Record<string, unknown>;
}

export interface App extends Omit<Core, 'ctx'> {
  server: FastifyInstance;
  ctx: AppContext;
  /** Runs one background job now and waits for it (tests, and the admin's "refresh now"). */
  runJob(name: string): Promise<void>;
}

/** The core's own job: notice changes other instances made to shared state. */
const SHARED_STATE_JOB: Job = { name: 'shared-state', intervalMs: (ctx) => ctx.config.stateRefreshMs, run: (ctx) => ctx.shared.poll() };

/** Idempotency keys older than IDEMPOTENCY_TTL_HOURS go, every hour. */
const IDEMPOTENCY_JOB: Job = {
  name: 'idempotency-keys',
  intervalMs: () => 3_600_000,
  run: (ctx) => pruneKeys(ctx.database.kysely, ctx.clock.now() - ctx.config.idempotencyTtlHours * 3_600_000),
};

/** The planner's statistics kept fresh as tables grow (SQLite; database.ts `maintain`), every hour. */
const STATISTICS_JOB: Job = { name: 'database-statistics', intervalMs: () => 3_600_000, run: (ctx) => ctx.database.maintain() };

/** The composition root: the core of the given modules, plus HTTP and background jobs. Not yet listening. */
export async function createApp(options: CreateAppOptions): Promise<App> {
  const { config } = options;
  const server = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    // A hop count is valid at run time (Fastify docs) though missing from its types.
    trustProxy: config.trustProxy as boolean | string,
    routerOptions: { ignoreTrailingSlash: true },
    // The client's X-Request-Id when sane, else a new one (request-log.ts).
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Fastify's own two lines per request are replaced by one compact line (request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    clientErrorHandler,
    frameworkErrors,
    // Closing is ours (connection-drain.ts): idle connections are kept a moment for requests on
    // their way, and a request that comes while closing gets our own 503.
    forceCloseConnections: false,
    return503OnClosing: false,
  });
  const drain = connectionDrain(server.server);
  let core: Core | undefined;
  let jobs: Jobs | undefined;
  try {
    core = await createCore({ ...options, modules: options.modules ?? (await installationModules(config)), log: server.log });
    const { ctx } = core;
    let closing = false;
    // Every route, as it is registered, for the OpenAPI document (HEAD mirrors GET; OPTIONS is CORS's;
    // the admin console's files are not part of the API).
    server.addHook('onRoute', (route) => {
      if (route.config?.console) return;
      for (const method of [route.method].flat()) {
        if (method === 'HEAD' || method === 'OPTIONS' || route.config?.notAllowed) continue;
        ctx.routes.push({ method, url: route.url, config: route.config ?? {}, schema: route.schema });
      }
    });
    registerLazySerializers(server);
    registerErrorHandler(server);
    registerRequestLog(server, (request) => ctx.pipeline.logContext?.(request));
    registerHealthRoutes(server, ctx, () => closing);
    // While closing, each answer ends its connection: a keep-alive client would otherwise hold the
    // server's close open until its own idle timeout. A request that arrives meanwhile is not run.
    server.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('Connection', 'close');
      done(null, payload);
    });
    server.addHook('onRequest', (request, _reply, done) => {
      done(closing && !request.routeOptions.config.operational ? new AppError('shutting-down', { retryAfter: 1 }) : undefined);
    });
    await registerBodyParsers(server, { bodyLimit: config.bodyLimit });
    await registerPipeline(server, ctx.pipeline);
    if (ctx.database.replicas) registerReadRouting(server, config.readYourWritesMs, (request) => String(ctx.pipeline.logContext?.(request)?.key ?? request.ip));
    registerProfileSerializer(server);
    await registerAdminConsole(server);
    registerRootRoute(server, ctx);
    // Before the routes: it wraps their handlers (and its answers' hook runs after the serialisers').
    registerIdempotency(server, {
      database: ctx.database,
      scopeOf: (request) => (request.caller ? String(ctx.pipeline.logContext?.(request)?.key ?? 'global') : undefined),
      now: () => ctx.clock.now(),
      ...(process.env.INVOICING_TEST_KILL_AFTER_COMMIT === '1' ? { afterCommit: () => process.kill(process.pid, 'SIGKILL') } : {}),
    });
    for (const model of ctx.registry.resources()) registerModelRoutes(server, ctx, model);
    for (const module of core.modules) await module.register?.(server, ctx);
    await server.ready();
    jobs = startJobs(ctx, [SHARED_STATE_JOB, IDEMPOTENCY_JOB, STATISTICS_JOB, ...core.modules.flatMap((module) => module.jobs ?? [])]);
    const started = core;
    const running = jobs;
    return {
      ...started,
      server,
      runJob: (name) => running.run(name),
      async close() {
        closing = true;
        drain.start();
        // Still accepting for a moment (answering 503): connections a client opened just before
        // would otherwise be reset in the listen queue when it closes. /ready says 503 meanwhile.
        // The listener closes from a check-phase callback, so that a poll phase (which accepts every
        // connection waiting in the queue) has run after the grace: a process starved of CPU for
        // longer than the grace would otherwise close straight after its timer, queue unread.
        if (server.server.listening) {
          await new Promise((resolve) => setTimeout(resolve, DRAIN_GRACE_MS));
          await new Promise((resolve) => setImmediate(resolve));
        }
        await server.close();
        await running.stop();
        await started.close();
      },
    };
  } catch (error) {
    await jobs?.stop().catch(() => {});
    await server.close().catch(() => {});
    await core?.close().catch(() => {});
    throw error;
  }
}
