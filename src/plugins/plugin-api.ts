import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../app-context.ts';
import type { BusinessClock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { DbExecutor, Engine } from '../db/database.ts';
import type { SqlDialect } from '../db/dialect.ts';
import type { ModelStore } from '../db/model-store.ts';
import { AppError, fieldErrors, validationError } from '../errors.ts';
import type { LoggedEvent } from '../event-log.ts';
import type { AppEvents } from '../events.ts';
import type { Method, WriteKind } from '../http/resource-route.ts';
import { defineModel, type Model } from '../models/define-model.ts';
import { f } from '../models/fields.ts';

/**
 * The surface a plugin may reach (docs/plugins.md): a plugin's entry file default-exports a
 * function that receives `PluginApi` and returns a `PluginDefinition`. Plugins import types only
 * from the core (`import type`), so a plugin folder outside the repository works the same.
 */
export interface PluginContext {
  /** The plugin's name (its folder). */
  readonly name: string;
  /** Whether the plugin is enabled, as of the last state refresh of this instance. */
  enabled(): boolean;
  /** The database (a Kysely instance) and its engine's SQL differences. */
  readonly db: DbExecutor;
  readonly engine: Engine;
  readonly dialect: SqlDialect;
  /** Reads and writes of any model's records, with its rules, hooks and events. */
  readonly store: ModelStore;
  /** One transaction; work after its commit with `afterCommit(trx, fn)`. Nothing inside may use `db`. */
  inTransaction<T>(fn: (trx: DbExecutor) => Promise<T>): Promise<T>;
  afterCommit(trx: DbExecutor, fn: () => void): void;
  readonly clock: BusinessClock;
  readonly config: Readonly<Config>;
  readonly log: Logger;
  /**
   * The event log after the event `after`, in order, never past an event still to commit
   * (docs/events.md); `last` is where the next read continues.
   */
  readEvents(after: number, limit: number): Promise<{ events: LoggedEvent[]; last: number }>;
  /** One event of the log, while it is kept. */
  readEvent(id: number): Promise<LoggedEvent | undefined>;
}

/** A custom endpoint: `path` below `/api/3/` (`notes/:id`), a resource name of its own for access rules. */
export interface PluginRoute {
  method: Method;
  path: string;
  resource: string;
  handler(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** For the `facturascripts` profile's reshaping of writes. */
  write?: WriteKind;
}

export type PluginSubscribers = { [K in keyof AppEvents]?: (payload: AppEvents[K]) => void | Promise<void> };

/** Background work: run every `intervalMs` while the plugin is enabled. */
export interface PluginJob {
  name: string;
  intervalMs: number;
  run(ctx: PluginContext): Promise<unknown>;
}

export interface PluginDefinition {
  /** Models: tables (created at start, kept when disabled), generic resources, schema, filters. */
  models?: Model[];
  setup?(ctx: PluginContext): void | Promise<void>;
  routes?(ctx: PluginContext): PluginRoute[];
  /** Called after the events' changes commit, only while the plugin is enabled. */
  subscribers?(ctx: PluginContext): PluginSubscribers;
  jobs?: PluginJob[];
}

/** What the core hands a plugin's entry function: the model DSL and the error vocabulary. */
export const pluginApi = { defineModel, f, AppError, validationError, fieldErrors };
export type PluginApi = typeof pluginApi;

/** The default export of a plugin's entry file. */
export type PluginEntry = (api: PluginApi) => PluginDefinition;
