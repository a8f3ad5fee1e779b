import type { AppContext } from '../../app-context.ts';
import { settingsModel } from './settings-model.ts';
import { DEFAULT_SETTINGS } from './default-settings.ts';

/**
 * Ensures the `default` settings group exists and holds every default key; keys already present
 * keep their values, so a second start changes nothing. Returns true when the group was created.
 */
export async function seedSettings(ctx: AppContext): Promise<boolean> {
  const existing = await ctx.store.get(settingsModel, 'default');
  if (!existing) {
    await ctx.store.create(settingsModel, { name: 'default', properties: { ...DEFAULT_SETTINGS } });
    return true;
  }
  const properties = (existing.properties ?? {}) as Record<string, unknown>;
  const missing = Object.keys(DEFAULT_SETTINGS).filter((key) => !(key in properties));
  if (missing.length) {
    const merged = { ...properties };
    for (const key of missing) merged[key] = DEFAULT_SETTINGS[key];
    await ctx.store.update(settingsModel, 'default', { properties: merged });
  }
  return false;
}
