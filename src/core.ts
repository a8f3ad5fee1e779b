import type { AppContext, Logger } from './app-context.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createDatabase, type Database } from './db/database.ts';
import { MIGRATIONS } from './db/migrations.ts';
import { ModelStore } from './db/model-store.ts';
import { syncSchema, type Migration, type SyncReport } from './db/schema-sync.ts';
import { EventBus } from './events.ts';
import type { Model } from './models/define-model.ts';
import { ModelRegistry } from './models/registry.ts';
import { coreModels } from './modules/core-models.ts';
import { AccessControl } from './modules/auth/access-control.ts';
import { seedSettings } from './modules/settings/seed-settings.ts';
import { runSeeds, type DataSeed } from './db/data-seeds.ts';
import { DEFAULT_DATA } from './modules/installation/default-data.ts';
import { codeCounterModel } from './db/code-counter.ts';
import { outsideTransaction } from './db/transaction.ts';

export interface CoreOptions {
  config: Config;
  /** An open database (tests); otherwise one is opened from config.databaseUrl and closed with the core. */
  database?: Database;
  /** Replaces the core models (migration tests use older versions of a model). */
  models?: Model[];
  migrations?: Migration[];
  /** Default data; by default the installation's own, none when `models` replaces the core models. */
  seeds?: DataSeed[];
  clock?: Clock;
  log: Logger;
}

export interface Core {
  ctx: AppContext;
  access: AccessControl;
  /** What the start did to the database: tables created, columns added, migrations applied. */
  schema: SyncReport;
  /** True when this start created the installation's default data (a new database). */
  firstRun: boolean;
  /** Ids of the default-data seeds this start loaded. */
  seeded: string[];
  close(): Promise<void>;
}

/**
 * Everything but HTTP, shared by the server and the CLI: database, registry (with its schema
 * brought up to date), store, events, default data and the access state.
 */
export async function createCore(options: CoreOptions): Promise<Core> {
  const { config } = options;
  const ownsDatabase = !options.database;
  const database = options.database ?? createDatabase(config.databaseUrl);
  database.reportError = (error, what) => options.log.error({ err: error }, what);
  try {
    const registry = new ModelRegistry([codeCounterModel, ...(options.models ?? coreModels())]);
    registry.check();
    const events = new EventBus((error, event) => options.log.error({ err: error, event }, 'event listener failed'), outsideTransaction);
    // The access control (and its settings cache) needs the context it belongs to: bound below.
    let access!: AccessControl;
    const ctx: AppContext = {
      config,
      database,
      registry,
      store: new ModelStore(database, events),
      events,
      clock: options.clock ?? systemClock,
      log: options.log,
      settings: () => access.settings(),
      customResources: new Set(),
      writers: new Map(),
    };
    const schema = await syncSchema(database, registry, options.migrations ?? MIGRATIONS);
    const firstRun = registry.get('settings') ? await seedSettings(ctx) : false;
    const seeded = await runSeeds(ctx, options.seeds ?? (options.models ? [] : DEFAULT_DATA));
    access = new AccessControl(ctx, { refreshMs: config.stateRefreshMs });
    if (registry.get('apikey')) await access.start();
    return {
      ctx,
      access,
      schema,
      firstRun,
      seeded,
      async close() {
        await access.stop();
        if (ownsDatabase) await database.close();
      },
    };
  } catch (error) {
    if (ownsDatabase) await database.close().catch(() => {});
    throw error;
  }
}
