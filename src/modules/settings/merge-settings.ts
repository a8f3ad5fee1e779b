import type { DbExecutor } from '../../db/database.ts';

type Row = Record<string, unknown>;

const parse = (value: unknown): Row => {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Row) : {};
  } catch {
    return {};
  }
};

/**
 * Settings groups an import copied over an installation's own (`before`, read before the copy):
 * the imported ones win key by key, so that what only this service keeps (its own keys of
 * `default`) stays where the source says nothing, and a group the source lacks stays as it was.
 */
export async function mergeImportedSettings(db: DbExecutor, before: readonly Row[]): Promise<void> {
  for (const own of before) {
    const imported = await db.selectFrom('settings').select('properties').where('name', '=', String(own.name)).executeTakeFirst();
    const merged = JSON.stringify({ ...parse(own.properties), ...parse(imported?.properties) });
    if (imported) await db.updateTable('settings').set({ properties: merged }).where('name', '=', String(own.name)).execute();
    else await db.insertInto('settings').values({ ...own, properties: merged }).execute();
  }
}

/** The settings groups as stored (an import reads them before replacing them). */
export async function settingsGroups(db: DbExecutor): Promise<Row[]> {
  return db.selectFrom('settings').selectAll().execute();
}
