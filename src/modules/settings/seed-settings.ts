import type { DataSeed } from '../../db/data-seeds.ts';
import { toDbValue } from '../../db/row-codec.ts';
import { settingsModel } from './settings-model.ts';
import { DEFAULT_SETTINGS } from './default-settings.ts';

/**
 * The `default` settings group of a new installation. Its id marks a new installation: it reports
 * a load (true) only when it created the group, which is what makes the first start print a key.
 * Written directly: the defaults are known to be valid, and the model's checks of references
 * (warehouse, serie ...) would look for rows the default data has not loaded yet. Keys added to
 * the defaults later need no row: readSettings supplies every missing key.
 */
export const settingsSeed: DataSeed = {
  id: 'settings',
  async run(ctx, trx) {
    const existing = await trx.selectFrom('settings').select('name').where('name', '=', 'default').executeTakeFirst();
    if (existing) return false;
    const properties = toDbValue(ctx.database.engine, settingsModel.fields.properties!, { ...DEFAULT_SETTINGS });
    await trx.insertInto('settings').values({ name: 'default', properties }).execute();
    // The default data that follows is dated on the new installation's wall clock.
    ctx.clock.zone = ctx.config.timeZone ?? String(DEFAULT_SETTINGS.timezone);
    return true;
  },
};
