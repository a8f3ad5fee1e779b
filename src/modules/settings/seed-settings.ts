import type { AppContext } from '../../app-context.ts';
import { toDbValue } from '../../db/row-codec.ts';
import { settingsModel } from './settings-model.ts';
import { DEFAULT_SETTINGS } from './default-settings.ts';

/**
 * Ensures the `default` settings group exists and holds every default key; keys already present
 * keep their values, so a second start changes nothing. Returns true when the group was created.
 * Written directly: the defaults are known to be valid, and the model's checks of references
 * (warehouse, serie ...) would look for rows the default data has not loaded yet.
 */
export async function seedSettings(ctx: AppContext): Promise<boolean> {
  const db = ctx.database.kysely;
  const json = (properties: Record<string, unknown>) => toDbValue(ctx.database.engine, settingsModel.fields.properties!, properties);
  const existing = await ctx.store.get(settingsModel, 'default');
  if (!existing) {
    const insert = db.insertInto('settings').values({ name: 'default', properties: json({ ...DEFAULT_SETTINGS }) });
    // Two instances starting on a new database at once: the second finds the row and goes on.
    const { engine } = ctx.database;
    const inserted = await (engine === 'mysql' ? insert.ignore() : insert.onConflict((oc) => oc.column('name').doNothing())).executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const properties = (existing.properties ?? {}) as Record<string, unknown>;
  const missing = Object.keys(DEFAULT_SETTINGS).filter((key) => !(key in properties));
  if (missing.length) {
    const merged = { ...properties };
    for (const key of missing) merged[key] = DEFAULT_SETTINGS[key];
    await db.updateTable('settings').set({ properties: json(merged) }).where('name', '=', 'default').execute();
  }
  return false;
}
