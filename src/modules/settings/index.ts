import type { Module } from '../../module.ts';
import { settingsModel } from './settings-model.ts';
import { settingsSeed } from './seed-settings.ts';
import { readSettings } from './settings.ts';

export { settingsModel, settingsSeed };
export { checkSettings, readSettings, settingsGroup, settingsSchema, type Settings } from './settings.ts';
export { DEFAULT_SETTINGS } from './default-settings.ts';
export { fillDefaults, settingsIn } from './settings-in.ts';
export { mergeImportedSettings, settingsGroups } from './merge-settings.ts';
export { refuseDeletingDefault } from './default-records.ts';

/**
 * Installation settings: the `settings` model, the default group of a new installation, and the
 * typed cache behind `ctx.settings()` (kept in step across instances).
 */
export function settingsModule(): Module {
  return {
    name: 'settings',
    models: [settingsModel],
    seeds: [settingsSeed],
    async setup(ctx) {
      const cache = ctx.shared.cache('settings', ['settings'], async () => {
        const settings = readSettings((await ctx.store.get(settingsModel, 'default'))?.properties as Record<string, unknown> | undefined);
        // The clock follows the setting unless the configuration names the zone.
        ctx.clock.zone = ctx.config.timeZone ?? settings.timezone;
        return settings;
      });
      await cache.get();
      ctx.settings = () => cache.read();
      ctx.currentSettings = () => cache.current();
    },
  };
}
