import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import { hashToken } from './auth-models.ts';

type Row = Record<string, unknown>;

/** An installation's own API keys and their rules, read before an import replaces the table. */
export interface OwnKeys {
  keys: Row[];
  rules: Row[];
}

export async function ownKeys(db: DbExecutor): Promise<OwnKeys> {
  return {
    keys: await db.selectFrom('api_keys').selectAll().orderBy('id').execute(),
    rules: await db.selectFrom('api_access').selectAll().orderBy('id').execute(),
  };
}

/**
 * The API keys an import copied as the established system keeps them (the token itself), made keys
 * of this service, in the caller's transaction: each token digested (the integrations' tokens keep
 * working, none is readable here) and answering in that system's shapes (the `facturascripts`
 * profile). Then this installation's own keys, back after them with new ids, tokens and rules as
 * they were (a token both had stands as the source's key; a key whose user is not among `users`,
 * the users now, keeps none). Answers the ids the own keys took.
 */
export async function adoptImportedKeys(db: DbExecutor, own: OwnKeys, users: ReadonlySet<string>): Promise<Array<{ id: number; from: number; description: string }>> {
  for (const key of await db.selectFrom('api_keys').select(['id', 'apikey']).execute()) {
    await db.updateTable('api_keys').set({ apikey: hashToken(String(key.apikey)), profile: 'facturascripts' }).where('id', '=', Number(key.id)).execute();
  }
  const taken = new Set((await db.selectFrom('api_keys').select('apikey').execute()).map((row) => String(row.apikey)));
  let next = Number((await db.selectFrom('api_keys').select(sql<number>`COALESCE(MAX(id), 0)`.as('m')).executeTakeFirst())?.m ?? 0);
  const kept: Array<{ id: number; from: number; description: string }> = [];
  for (const key of own.keys) {
    if (taken.has(String(key.apikey))) continue;
    const id = ++next;
    // Its user may have gone with the default data the source's replaced.
    const nick = key.nick !== null && key.nick !== undefined && users.has(String(key.nick)) ? key.nick : null;
    await db.insertInto('api_keys').values({ ...key, id, nick }).execute();
    kept.push({ id, from: Number(key.id), description: String(key.description ?? '') });
    for (const { id: _id, ...rule } of own.rules.filter((candidate) => Number(candidate.idapikey) === Number(key.id))) {
      await db.insertInto('api_access').values({ ...rule, idapikey: id }).execute();
    }
  }
  return kept;
}
