import type { DbExecutor } from '../../db/database.ts';

/** What the report of an import says of its users. */
export const IMPORTED_USERS_NOTE = 'they cannot sign in here (this service signs in with API keys only): their passwords, login keys and two-factor secrets were not kept';

/**
 * Users an import copied, kept as the authors of their documents and the owners of their keys, with
 * nothing that would let them sign in: no password hash (a marker no password matches), no login
 * key, no two-factor secret. Answers how many.
 */
export async function disarmImportedUsers(db: DbExecutor): Promise<number> {
  const { numUpdatedRows } = await db.updateTable('users').set({ password: 'imported:no-password', logkey: null, two_factor_secret_key: null }).executeTakeFirst();
  return Number(numUpdatedRows);
}

/** The users' nicks as they are now (an import's own keys keep their user only if it is still there). */
export async function userNicks(db: DbExecutor): Promise<Set<string>> {
  return new Set((await db.selectFrom('users').select('nick').execute()).map((row) => String(row.nick)));
}
