import { sql } from 'kysely';
import { defineModel } from '../models/define-model.ts';
import { f } from '../models/fields.ts';
import type { Database, DbExecutor } from './database.ts';
import type { ModelStore } from './model-store.ts';
import { afterCommit, assertNoTransaction } from './transaction.ts';
import { onPrimary } from './read-replicas.ts';
import { currentGate } from './commit-gate.ts';
import { activePin, pinnedCacheRead, pinWroteCache } from './pinned-transaction.ts';

/**
 * Version counters of cached state (keys and rules, settings, reference data), one row per cache.
 * A write to the models behind a cache moves its counter in the same transaction; every instance
 * polls the counters and reloads a cache whose counter moved.
 */
export const stateVersionModel = defineModel({
  name: 'ApiStateVersion',
  table: 'api_state',
  internal: true,
  fields: {
    name: f.string(50, { primary: true }),
    version: f.integer({ notNull: true, default: 0 }),
  },
});

/**
 * State loaded from the database and served from memory until it may be behind: invalidated when
 * this instance commits a change to its models (at once) or another instance does (on the next
 * poll). Never loaded inside a transaction: a use case reads what it needs before it begins.
 */
export class SharedCache<T> {
  readonly name: string;
  readonly #load: () => Promise<T>;
  #value: T | undefined;
  #stale = true;
  #loading: Promise<void> | undefined;
  /** The shared version the loaded value reflects (as of the last poll). */
  version = -1;

  constructor(name: string, load: () => Promise<T>) {
    this.name = name;
    this.#load = load;
  }

  invalidate(): void {
    this.#stale = true;
  }

  /**
   * The current value: at once when it is known to be current, else after a load. Refused inside a
   * transaction even when current, so that a misplaced read fails every time, not only on the rare
   * request that finds the cache stale.
   */
  read(): Promise<T> {
    assertNoTransaction(`the cached ${this.name}`);
    // A pinned flow reads through get(), which keeps its own copy.
    return this.current() !== undefined && !activePin() ? Promise.resolve(this.#value as T) : this.get();
  }

  /** The value when it is known to be current, without waiting; undefined when a load is due. */
  current(): T | undefined {
    return this.#stale || this.#loading ? undefined : this.#value;
  }

  /**
   * The current value, loading it when needed. A load already in flight may have read before the
   * latest change; the change raised `#stale` again, so we go round again.
   */
  async get(): Promise<T> {
    assertNoTransaction(`the cached ${this.name}`);
    const pin = activePin();
    if (pin) return pinnedCacheRead(pin, this.name, this.#load);
    for (;;) {
      if (this.#loading) {
        // A load started by another request needs a connection this request may hold for its
        // answer (commit-gate.ts): commit that first, or on SQLite neither could go on.
        await currentGate()?.release();
        await this.#loading;
        continue;
      }
      if (!this.#stale) return this.#value as T;
      this.#stale = false;
      // From the primary whatever the caller: a replica behind the change that invalidated the
      // cache would otherwise be kept as current until the next change.
      this.#loading = onPrimary(() => this.#load())
        .then((value) => {
          this.#value = value;
        }, (error: unknown) => {
          this.#stale = true;
          throw error;
        })
        .finally(() => {
          this.#loading = undefined;
        });
    }
  }
}

/** The caches of one app and the counters that keep the instances' copies in step. */
export class SharedState {
  readonly #database: Database;
  readonly #store: ModelStore;
  readonly #caches = new Map<string, SharedCache<unknown>>();

  constructor(database: Database, store: ModelStore) {
    this.#database = database;
    this.#store = store;
  }

  /**
   * A cache named `name` of state derived from the models `resources` (resource names): any
   * write to them, through the store, moves the counter in its transaction and invalidates this
   * instance's copy once it commits.
   */
  cache<T>(name: string, resources: string[], load: () => Promise<T>): SharedCache<T> {
    if (this.#caches.has(name)) throw new Error(`shared cache "${name}" declared twice`);
    const cache = new SharedCache(name, load);
    this.#caches.set(name, cache as SharedCache<unknown>);
    this.#store.watch(resources, (db) => this.bump(db, name));
    return cache;
  }

  /** The cache declared under `name` (its owning module reads it through its own typed function). */
  named<T>(name: string): SharedCache<T> {
    const cache = this.#caches.get(name);
    if (!cache) throw new Error(`no shared cache "${name}" (is its module part of this app?)`);
    return cache as SharedCache<T>;
  }

  /** Moves the counter of `name` inside the caller's transaction; this instance reloads after commit. */
  async bump(db: DbExecutor, name: string): Promise<void> {
    const { numUpdatedRows } = await db.updateTable('api_state').set({ version: sql`version + 1` }).where('name', '=', name).executeTakeFirst();
    if (!Number(numUpdatedRows)) {
      const insert = db.insertInto('api_state').values({ name, version: 1 });
      await (this.#database.engine === 'mysql' ? insert.ignore() : insert.onConflict((oc) => oc.column('name').doNothing())).execute();
    }
    const cache = this.#caches.get(name);
    if (cache) afterCommit(db, () => cache.invalidate());
    pinWroteCache(name);
  }

  /** Moves every cache's counter in the caller's transaction: for writes that went around the store (an import of whole books). */
  async bumpAll(db: DbExecutor): Promise<void> {
    for (const name of this.#caches.keys()) await this.bump(db, name);
  }

  /** Reads every counter and invalidates the caches another instance has moved (a background tick). */
  async poll(): Promise<void> {
    const rows = await this.#database.kysely.selectFrom('api_state').select(['name', 'version']).execute();
    const versions = new Map(rows.map((row) => [String(row.name), Number(row.version)]));
    for (const cache of this.#caches.values()) {
      const version = versions.get(cache.name) ?? 0;
      if (version !== cache.version) {
        cache.version = version;
        cache.invalidate();
      }
    }
  }
}
