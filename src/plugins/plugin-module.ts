import type { AppContext } from '../app-context.ts';
import { afterCommit, inTransaction } from '../db/transaction.ts';
import { readEventLog } from '../event-log.ts';
import { addResourceRoute, type Handler, type Method, type WriteKind } from '../http/resource-route.ts';
import type { Module } from '../module.ts';
import type { PluginContext, PluginDefinition } from './plugin-api.ts';
import type { PluginManifest } from './plugin-manifest.ts';
import type { PluginStates } from './plugin-states.ts';

/** An installed plugin: its folder, manifest and what its entry returned. */
export interface InstalledPlugin {
  folder: string;
  manifest: PluginManifest;
  definition: PluginDefinition;
}

/**
 * A plugin as a module of the core's contract. Its models join the registry (tables are made at
 * start and kept while it is disabled); its resources (models and endpoints) exist only while it is
 * enabled, through `ctx.availability`; its subscribers and jobs run only while it is enabled.
 * `states` is the shared cache of enabled plugins (plugins-module.ts).
 */
export function pluginModule(plugin: InstalledPlugin, states: () => PluginStates): Module {
  const { name } = plugin.manifest;
  const { definition } = plugin;
  let context: PluginContext | undefined;
  const enabledNow = async () => (await states().get()).has(name);
  return {
    name: `plugin:${name}`,
    models: definition.models ?? [],
    async setup(ctx: AppContext) {
      context = {
        name,
        enabled: () => states().current()?.has(name) ?? false,
        db: ctx.database.kysely,
        engine: ctx.database.engine,
        dialect: ctx.database.dialect,
        store: ctx.store,
        inTransaction: (fn) => inTransaction(ctx.database, fn),
        afterCommit,
        clock: ctx.clock,
        config: ctx.config,
        log: ctx.log,
        async readEvents(after, limit) {
          const page = await readEventLog(ctx.database.kysely, { after, limit, now: ctx.clock.now(), gapMs: ctx.config.eventsGapMs });
          return { events: page.events, last: page.last };
        },
        async readEvent(id) {
          const page = await readEventLog(ctx.database.kysely, { after: id - 1, limit: 1, now: ctx.clock.now(), gapMs: Number.MAX_SAFE_INTEGER });
          return page.events[0]?.id === id ? page.events[0] : undefined;
        },
      };
      for (const model of definition.models ?? []) {
        ctx.availability.set(model.resource, enabledNow);
        ctx.availability.set(model.alias, enabledNow);
      }
      await definition.setup?.(context);
      const subscribers = definition.subscribers?.(context) ?? {};
      for (const [event, handler] of Object.entries(subscribers)) {
        const run = handler as (payload: unknown) => void | Promise<void>;
        ctx.events.on(event as never, ((payload: unknown) => (context!.enabled() ? run(payload) : undefined)) as never);
      }
    },
    register(server, ctx) {
      const byPath = new Map<string, { resource: string; methods: Partial<Record<Method, { handler: Handler; write?: WriteKind }>> }>();
      for (const route of definition.routes?.(context!) ?? []) {
        const entry = byPath.get(route.path) ?? { resource: route.resource, methods: {} };
        entry.methods[route.method] = { handler: route.handler, write: route.write };
        byPath.set(route.path, entry);
        ctx.customResources.add(route.resource);
        ctx.availability.set(route.resource, enabledNow);
      }
      for (const [path, entry] of byPath) addResourceRoute(server, { resource: entry.resource, urls: [`/api/3/${path}`], methods: entry.methods });
    },
    jobs: (definition.jobs ?? []).map((job) => ({
      name: `${name}:${job.name}`,
      intervalMs: () => job.intervalMs,
      run: async () => ((await enabledNow()) ? job.run(context!) : undefined),
    })),
  };
}
