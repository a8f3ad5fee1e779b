import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import type { Values } from '../../models/define-model.ts';
import type { Settings } from '../../settings.ts';
import { settingsModel } from './settings-model.ts';
import { namesExistingRecord, readSettings } from './settings.ts';

const readProperties = rowReader(settingsModel, ['properties']);

/**
 * The `default` settings as stored in `db`'s transaction, typed like `ctx.settings()`. For model
 * hooks, which run inside a write's transaction where the cached snapshot may not be read: one
 * statement per call.
 */
export async function settingsIn(db: DbExecutor): Promise<Settings> {
  const row = await db.selectFrom('settings').select('properties').where('name', '=', 'default').executeTakeFirst();
  return readSettings((row ? readProperties(row).properties : undefined) as Record<string, unknown> | undefined);
}

/**
 * Fills the fields a new record left out (absent, not null) with the settings of the same name
 * (`codimpuesto`, `idempresa`, `codpais` ...), as `defaultsIn` gives them; nothing is read when
 * every field was given.
 */
export async function fillDefaults(db: DbExecutor, values: Values, keys: ReadonlyArray<keyof Settings & string>): Promise<void> {
  const missing = keys.filter((key) => values[key] === undefined);
  if (!missing.length) return;
  const defaults = await defaultsIn(db, missing);
  for (const key of missing) if (defaults[key] !== undefined) values[key] = defaults[key] as Values[string];
}

/**
 * The settings a new record takes as defaults (a product's `codimpuesto`, a warehouse's
 * `idempresa` ...): only keys with a value, and, for keys naming a record, only when that record
 * exists (an installation without default data names records it does not have).
 */
export async function defaultsIn<K extends keyof Settings & string>(db: DbExecutor, keys: readonly K[]): Promise<Partial<Pick<Settings, K>>> {
  const settings = await settingsIn(db);
  const defaults: Partial<Pick<Settings, K>> = {};
  for (const key of keys) {
    const value = settings[key];
    if (value !== null && value !== undefined && (await namesExistingRecord(db, key, value))) defaults[key] = value;
  }
  return defaults;
}
