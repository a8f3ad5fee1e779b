import type { FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import type { DataSeed } from './db/data-seeds.ts';
import type { Model } from './models/define-model.ts';

/** Work a module runs in the background of a serving app: at start, then every `intervalMs`. */
export interface Job {
  name: string;
  intervalMs(ctx: AppContext): number;
  run(ctx: AppContext): Promise<unknown>;
}

/**
 * The one contract of the core's modules (and, with a manifest, of plugins). A module is a plain
 * object made by a factory (`customersModule()`), so each app gets its own; its state lives in
 * what `setup` creates, never in module-level singletons.
 *
 * Order of a start: every module's `models` join the registry (which orders tables by their
 * foreign keys) and the schema is synced; `seeds` run once per database, in module order; then
 * `setup` wires what needs the context (caches, store watchers, domain writers, pipeline steps),
 * in module order. A serving app then calls `register` (routes) and starts the `jobs`; the CLI
 * stops after `setup`. `stop` runs on close, in reverse order.
 */
export interface Module {
  name: string;
  models?: Model[];
  seeds?: DataSeed[];
  setup?(ctx: AppContext): void | Promise<void>;
  register?(server: FastifyInstance, ctx: AppContext): void | Promise<void>;
  jobs?: Job[];
  stop?(): void | Promise<void>;
}
