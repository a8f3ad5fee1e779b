import type { DbExecutor } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import type { Settings } from '../../settings.ts';
import { settingsIn } from './settings-in.ts';

/**
 * Refuses to delete a record the installation's settings name as a default (the reference: the
 * default tax, serie, payment method, currency, warehouse, country and company cannot be deleted):
 * 409 `default-record`, `setting` naming the key. For `beforeDelete` hooks.
 */
export async function refuseDeletingDefault(db: DbExecutor, keys: ReadonlyArray<keyof Settings & string>, value: unknown): Promise<void> {
  const settings = await settingsIn(db);
  const setting = keys.find((key) => settings[key] !== null && settings[key] !== undefined && String(settings[key]) === String(value));
  if (setting) throw new AppError('default-record', { setting });
}
