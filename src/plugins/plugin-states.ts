import type { AppContext } from '../app-context.ts';
import type { SharedCache } from '../db/shared-state.ts';
import { defineModel } from '../models/define-model.ts';
import { f } from '../models/fields.ts';

/** Which installed plugins are enabled: the installation's state, shared by its instances. */
export const pluginStateModel = defineModel({
  name: 'PluginState',
  table: 'plugin_states',
  internal: true,
  fields: {
    enabled: f.boolean({ notNull: true, default: false }),
    name: f.string(50, { primary: true }),
    updated: f.timestamp(),
  },
});

export type PluginStates = SharedCache<ReadonlySet<string>>;

/**
 * The names of the enabled plugins, cached per instance and reloaded when any instance switches
 * one (a shared version counter moved in the switching transaction; other instances see it
 * within STATE_REFRESH_MS).
 */
export function pluginStates(ctx: AppContext): PluginStates {
  return ctx.shared.cache('plugins', [pluginStateModel.resource], async () => {
    const rows = await ctx.database.kysely.selectFrom('plugin_states').select(['name', 'enabled']).execute();
    return new Set(rows.filter((row) => row.enabled === true || Number(row.enabled) === 1).map((row) => String(row.name)));
  });
}
