import type { AppContext } from '../app-context.ts';
import { inTransaction } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { now } from '../models/fields.ts';
import { addResourceRoute, type Handler } from '../http/resource-route.ts';
import type { Module } from '../module.ts';
import { CORE_VERSION } from './plugin-manifest.ts';
import { pluginModule, type InstalledPlugin } from './plugin-module.ts';
import { pluginRecord, queryPlugins } from './plugin-records.ts';
import { pluginStateModel, pluginStates, type PluginStates } from './plugin-states.ts';

/**
 * The `plugins` resource (reference section 11) and the modules of the installed plugins: the
 * returned list is this module followed by one module per plugin, in dependency order.
 */
export function pluginsModules(installed: InstalledPlugin[]): Module[] {
  let states: PluginStates | undefined;
  const byName = new Map(installed.map((plugin) => [plugin.manifest.name, plugin]));
  const names = new Set(byName.keys());
  const recordOf = async (plugin: InstalledPlugin) => pluginRecord(plugin, names, await states!.get());
  const find = (name: string) => {
    const plugin = byName.get(name);
    if (!plugin) throw new AppError('plugin-not-found', { plugin: name });
    return plugin;
  };

  async function switchPlugin(ctx: AppContext, plugin: InstalledPlugin, enable: boolean): Promise<void> {
    const enabled = await states!.get();
    const { name } = plugin.manifest;
    if (enable) {
      const record = pluginRecord(plugin, names, enabled);
      if (plugin.manifest.min_version > CORE_VERSION) throw new AppError('plugin-incompatible', { plugin: name, min_version: plugin.manifest.min_version, core_version: CORE_VERSION });
      const missing = plugin.manifest.require.filter((required) => !enabled.has(required));
      if (!record.compatible || missing.length) throw new AppError('plugin-requirements-missing', { plugin: name, missing });
    } else {
      const by = installed.filter((other) => enabled.has(other.manifest.name) && other.manifest.require.includes(name)).map((other) => other.manifest.name);
      if (by.length) throw new AppError('plugin-required', { plugin: name, by });
    }
    await inTransaction(ctx.database, async (trx) => {
      const values = { enabled: enable, updated: now() };
      if (await ctx.store.get(pluginStateModel, name, trx, 'all', true)) await ctx.store.update(pluginStateModel, name, values, trx);
      else await ctx.store.create(pluginStateModel, { name, ...values }, trx);
    });
  }

  const core: Module = {
    name: 'plugins',
    models: [pluginStateModel],
    async setup(ctx) {
      states = pluginStates(ctx);
      await states.get();
      // Synchronous for the resources that cannot be switched off: every request asks.
      ctx.pipeline.available = (resource) => {
        const available = ctx.availability.get(resource);
        return available ? available() : true;
      };
    },
    register(server, ctx) {
      ctx.customResources.add('plugins');
      const list: Handler = async (request, reply) => {
        const records = await Promise.all(installed.map(recordOf));
        reply.header('X-Core-Version', String(CORE_VERSION));
        return queryPlugins(records, request.query as Record<string, unknown>);
      };
      const one: Handler = async (request) => recordOf(find((request.params as { name: string }).name));
      const action: Handler = async (request) => {
        // The resource's own rule (allowpost on `plugins`) was checked by the pipeline; switching
        // plugins changes the installation, so a full-access key is needed too.
        if (!request.caller?.fullaccess) throw new AppError('full-access-required');
        const { name, action: verb } = request.params as { name: string; action: string };
        if (verb !== 'enable' && verb !== 'disable') throw new AppError('invalid-action', { action: verb });
        const plugin = find(name);
        await switchPlugin(ctx, plugin, verb === 'enable');
        return { status: 'success', message: verb === 'enable' ? 'plugin-enabled' : 'plugin-disabled', plugin: await recordOf(plugin) };
      };
      addResourceRoute(server, { resource: 'plugins', urls: ['/api/3/plugins'], methods: { GET: { handler: list } } });
      addResourceRoute(server, { resource: 'plugins', urls: ['/api/3/plugins/:name'], methods: { GET: { handler: one } } });
      addResourceRoute(server, { resource: 'plugins', urls: ['/api/3/plugins/:name/:action'], methods: { POST: { handler: action } } });
    },
  };
  return [core, ...installed.map((plugin) => pluginModule(plugin, () => states!))];
}
