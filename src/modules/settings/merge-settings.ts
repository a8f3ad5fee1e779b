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
 * What this installation keeps of its own whatever the source says: whether its API answers (a
 * source that never used its API holds `enable_api: false`, which would lock out every key here,
 * the source's included).
 */
const KEPT: Record<string, readonly string[]> = { default: ['enable_api'] };

/**
 * Settings groups an import copied over an installation's own (`before`, read before the copy):
 * the imported ones win key by key, so that what only this service keeps (its own keys of
 * `default`) stays where the source says nothing, and a group the source lacks stays as it was;
 * the keys of `KEPT` stay this installation's.
 */
export async function mergeImportedSettings(db: DbExecutor, before: readonly Row[]): Promise<void> {
  for (const own of before) {
    const imported = await db.selectFrom('settings').select('properties').where('name', '=', String(own.name)).executeTakeFirst();
    const mine = parse(own.properties);
    const kept = Object.fromEntries((KEPT[String(own.name)] ?? []).filter((key) => key in mine).map((key) => [key, mine[key]]));
    const merged = JSON.stringify({ ...mine, ...parse(imported?.properties), ...kept });
    if (imported) await db.updateTable('settings').set({ properties: merged }).where('name', '=', String(own.name)).execute();
    else await db.insertInto('settings').values({ ...own, properties: merged }).execute();
  }
}

/** The settings groups as stored (an import reads them before replacing them). */
export async function settingsGroups(db: DbExecutor): Promise<Row[]> {
  return db.selectFrom('settings').selectAll().execute();
}
