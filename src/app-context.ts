import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { ModelStore } from './db/model-store.ts';
import type { EventBus } from './events.ts';
import type { ModelRegistry } from './models/registry.ts';
import type { Clock } from './clock.ts';

/** Everything a module needs, built once by the composition root (src/app.ts); no module singletons. */
export interface AppContext {
  config: Config;
  database: Database;
  registry: ModelRegistry;
  store: ModelStore;
  events: EventBus;
  clock: Clock;
  /** Names of custom endpoints (listed at the API root next to the model resources). */
  customResources: Set<string>;
}
