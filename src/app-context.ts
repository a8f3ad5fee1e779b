import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { ModelStore } from './db/model-store.ts';
import type { EventBus } from './events.ts';
import type { Hooks } from './hooks.ts';
import type { ModelRegistry } from './models/registry.ts';
import type { BusinessClock } from './clock.ts';
import type { Model } from './models/define-model.ts';
import type { FieldValue } from './models/fields.ts';
import type { InputSource } from './models/coerce.ts';
import type { ReadOptions } from './models/read-input.ts';
import type { Settings } from './settings.ts';
import type { SharedState } from './db/shared-state.ts';
import type { PipelineSteps } from './http/pipeline.ts';
import type { FastifyContextConfig, FastifySchema } from 'fastify';

/** The pino-style logger of the app (Fastify's), or a console adapter in the CLI. */
export interface Logger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/**
 * How the generic routes of a model write, when its domain needs more than the store's plain
 * insert/update/delete (documents and their lines recalculate, number, move stock ...).
 */
export interface RecordWriter {
  /**
   * True when its create and update take uploads: their multipart bodies are then not parsed
   * ahead but handed over as a `MultipartStream` (http/multipart-stream.ts) to stream to storage.
   */
  streamsFiles?: boolean;
  /** `options`: how the request's profile reads a body (the facturascripts profile skips members that are not columns). */
  create(body: unknown, source: InputSource, options?: ReadOptions): Promise<Record<string, unknown>>;
  update(id: FieldValue, body: unknown, source: InputSource, options?: ReadOptions): Promise<Record<string, unknown>>;
  remove(id: FieldValue): Promise<Record<string, unknown>>;
}

/**
 * A record embedded on request in a model's reads (`expand=<name>`): documents' `lineas`, their
 * `cliente` or `proveedor`. `attach` adds it to a page of records with one read for the whole page.
 */
export interface RecordExpansion {
  /** The resource it shows: a key that may not read it may not embed it. */
  resource: string;
  /** Its JSON schema in the answer. */
  schema: Record<string, unknown>;
  attach(records: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>>;
}

/**
 * What a model's records show beyond their columns (an attached file's download links): the JSON
 * Schema of the added properties, and the function adding them to records on their way out of
 * the generic routes (lists, one record, writes). It may read the request's query.
 */
export interface RecordPresenter {
  properties: Record<string, unknown>;
  present(records: Array<Record<string, unknown>>, query: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
}

/**
 * Adds what a module shows on another module's records: beside any presenter already set for the
 * model (each module's properties, applied in module order).
 */
export function addPresenter(ctx: { presenters: Map<Model, RecordPresenter> }, model: Model, presenter: RecordPresenter): void {
  const before = ctx.presenters.get(model);
  ctx.presenters.set(model, before ? {
    properties: { ...before.properties, ...presenter.properties },
    present: async (records, query) => presenter.present(await before.present(records, query), query),
  } : presenter);
}

/** Everything a module needs, built once by the composition root (src/app.ts); no module singletons. */
export interface AppContext {
  config: Config;
  database: Database;
  registry: ModelRegistry;
  store: ModelStore;
  events: EventBus;
  clock: BusinessClock;
  log: Logger;
  /**
   * The `default` settings group, typed, from the settings module's cache. Read it before a
   * transaction starts (it refuses to load inside one) and pass the snapshot down.
   */
  settings(): Promise<Settings>;
  /** The same settings when the cache is current, without waiting; undefined when a load is due (then use `settings()`). */
  currentSettings(): Settings | undefined;
  /** Caches kept in step across instances (see db/shared-state.ts). */
  shared: SharedState;
  /** Steps of the request pipeline that modules provide (the auth module: switch, key, permission). */
  pipeline: PipelineSteps;
  /** Names of custom endpoints (listed at the API root next to the model resources). */
  customResources: Set<string>;
  /** Domain writers replacing the store behind a model's generic routes. */
  writers: Map<Model, RecordWriter>;
  /** Additions to the records a model's generic routes answer with (see RecordPresenter). */
  presenters: Map<Model, RecordPresenter>;
  /** What a model's generic reads may embed on request, by name (see RecordExpansion, http/read-view.ts). */
  expansions: Map<Model, Record<string, RecordExpansion>>;
  /**
   * Resources that may be switched off (a plugin's models and endpoints), by resource name: while
   * the function says no, their routes answer 404 and the root does not list them.
   */
  availability: Map<string, () => Promise<boolean>>;
  /** Every route the HTTP server serves (filled as they are registered): what the OpenAPI document describes. */
  routes: RouteRecord[];
  /** Handlers of the modules' named hook points (src/hooks.ts): how a module takes part in an earlier module's flow. */
  hooks: Hooks;
}

/** One served method and URL (Fastify's path syntax), with what describes it. */
export interface RouteRecord {
  method: string;
  url: string;
  config: FastifyContextConfig;
  schema?: FastifySchema;
}
