import type { AppContext, Logger } from './app-context.ts';
import { BusinessClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { codeCounterModel } from './db/code-counter.ts';
import { createDatabase, type Database } from './db/database.ts';
import { runSeeds } from './db/data-seeds.ts';
import { MIGRATIONS } from './db/migrations.ts';
import { ModelStore } from './db/model-store.ts';
import { syncSchema, type Migration, type SyncReport } from './db/schema-sync.ts';
import { SharedState, stateVersionModel } from './db/shared-state.ts';
import { idempotencyKeyModel } from './db/idempotency-keys.ts';
import { outsideTransaction } from './db/transaction.ts';
import { EventBus } from './events.ts';
import { Hooks } from './hooks.ts';
import { CountCache } from './db/count-cache.ts';
import { eventLogModel } from './event-log.ts';
import type { Module } from './module.ts';
import { ModelRegistry } from './models/registry.ts';

export interface CoreOptions {
  config: Config;
  /** What the installation is made of (`coreModules()`); tests pick the modules they need. */
  modules: Module[];
  /** An open database (tests); otherwise one is opened from config.databaseUrl and closed with the core. */
  database?: Database;
  migrations?: Migration[];
  /** The instants' source (tests inject one); the business zone comes from TIME_ZONE or the settings. */
  clock?: Clock;
  log: Logger;
}

export interface Core {
  ctx: AppContext;
  modules: Module[];
  /** What the start did to the database: tables created, columns added, migrations applied. */
  schema: SyncReport;
  /** True when this start created the installation (the settings module's seed loaded). */
  firstRun: boolean;
  /** Ids of the seeds this start loaded. */
  seeded: string[];
  close(): Promise<void>;
}

/**
 * Everything but HTTP, shared by the server and the CLI: database, the registry of every module's
 * models (with the schema brought up to date), store, events, shared caches, default data, and
 * each module's setup.
 */
export async function createCore(options: CoreOptions): Promise<Core> {
  const { config, modules } = options;
  const ownsDatabase = !options.database;
  const database = options.database ?? createDatabase(config.databaseUrl, {
    readUrls: config.databaseReadUrls, replicaMaxLagMs: config.readReplicaMaxLagMs, replicaCheckMs: config.readReplicaCheckMs,
    groupCommit: config.groupCommit === 'auto' ? undefined : config.groupCommit === 'on',
    namedStatements: config.pgPreparedStatements,
  });
  database.reportError = (error, what) => options.log.error({ err: error }, what);
  const stopped: Module[] = [];
  try {
    // The data layer's own tables, then every module's models; the registry orders them by their foreign keys.
    const registry = new ModelRegistry([codeCounterModel, stateVersionModel, eventLogModel, idempotencyKeyModel, ...modules.flatMap((module) => module.models ?? [])]);
    registry.check();
    const events = new EventBus((error, event) => options.log.error({ err: error, event }, 'event listener failed'), outsideTransaction);
    const clock = new BusinessClock(options.clock, config.timeZone ?? 'UTC');
    const counts = new CountCache({
      writes: database.writes,
      byTable: (table) => registry.byTable(table),
      now: () => clock.now(),
      maxAgeMs: config.stateRefreshMs,
      report: (error) => options.log.warn({ err: error }, 'background recount of a list total failed'),
    });
    const store = new ModelStore(database, events, clock, { counts });
    const ctx: AppContext = {
      config,
      database,
      registry,
      store,
      events,
      clock,
      log: options.log,
      settings: () => Promise.reject(new Error('no settings module in this app')),
      currentSettings: () => undefined,
      shared: new SharedState(database, store),
      pipeline: {},
      customResources: new Set(),
      writers: new Map(),
      presenters: new Map(),
      expansions: new Map(),
      availability: new Map(),
      routes: [],
      hooks: new Hooks(),
    };
    const schema = await syncSchema(database, registry, options.migrations ?? MIGRATIONS);
    const seeded = await runSeeds(ctx, modules.flatMap((module) => module.seeds ?? []));
    for (const module of modules) {
      await module.setup?.(ctx);
      stopped.unshift(module);
    }
    await ctx.shared.poll();
    return {
      ctx,
      modules,
      schema,
      firstRun: seeded.includes('settings'),
      seeded,
      async close() {
        for (const module of stopped) await module.stop?.();
        if (ownsDatabase) await database.close();
      },
    };
  } catch (error) {
    for (const module of stopped) await Promise.resolve(module.stop?.()).catch(() => {});
    if (ownsDatabase) await database.close().catch(() => {});
    throw error;
  }
}
