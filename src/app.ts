import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createDatabase, type Database } from './db/database.ts';
import { ModelStore } from './db/model-store.ts';
import { syncSchema, type Migration, type SyncReport } from './db/schema-sync.ts';
import { EventBus } from './events.ts';
import { registerBodyParsers } from './http/body.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { registerModelRoutes } from './http/model-routes.ts';
import { registerPipeline } from './http/pipeline.ts';
import { registerRootRoute } from './http/root-route.ts';
import type { Model } from './models/define-model.ts';
import { ModelRegistry } from './models/registry.ts';
import { coreModels } from './modules/core-models.ts';
import { MIGRATIONS } from './db/migrations.ts';
import { seedSettings } from './modules/settings/seed-settings.ts';

export interface CreateAppOptions {
  config: Config;
  /** An open database (tests); otherwise one is opened from config.databaseUrl and closed with the app. */
  database?: Database;
  /** Replaces the core models (migration tests use older versions of a model). */
  models?: Model[];
  migrations?: Migration[];
  clock?: Clock;
  /** Fastify logger option; defaults to pino at config.logLevel. */
  logger?: boolean | Record<string, unknown>;
}

export interface App {
  server: FastifyInstance;
  ctx: AppContext;
  /** What the start did to the database: tables created, columns added, migrations applied. */
  schema: SyncReport;
  /** True when this start created the installation's default data (a new database). */
  firstRun: boolean;
  close(): Promise<void>;
}

/** The composition root: database, registry, store, events, routes. Returns an app not yet listening. */
export async function createApp(options: CreateAppOptions): Promise<App> {
  const { config } = options;
  const ownsDatabase = !options.database;
  const database = options.database ?? createDatabase(config.databaseUrl);
  const server = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    // A hop count is valid at run time (Fastify docs) though missing from its types.
    trustProxy: config.trustProxy as boolean | string,
    routerOptions: { ignoreTrailingSlash: true },
    // Per-request log lines only at debug level: they cost more than a whole cached read.
    logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
  });
  try {
    const registry = new ModelRegistry(options.models ?? coreModels());
    registry.check();
    const events = new EventBus((error, event) => server.log.error({ err: error, event }, 'event listener failed'));
    const ctx: AppContext = {
      config,
      database,
      registry,
      store: new ModelStore(database, events),
      events,
      clock: options.clock ?? systemClock,
      customResources: new Set(),
    };
    const schema = await syncSchema(database, registry, options.migrations ?? MIGRATIONS);
    const firstRun = await seedSettings(ctx);

    registerErrorHandler(server);
    await registerBodyParsers(server, { bodyLimit: config.bodyLimit });
    await registerPipeline(server, {});
    registerRootRoute(server, ctx);
    for (const model of registry.models) registerModelRoutes(server, ctx, model);
    await server.ready();

    return {
      server,
      ctx,
      schema,
      firstRun,
      async close() {
        await server.close();
        if (ownsDatabase) await database.close();
      },
    };
  } catch (error) {
    await server.close().catch(() => {});
    if (ownsDatabase) await database.close().catch(() => {});
    throw error;
  }
}
