import type { InsertQueryBuilder } from 'kysely';
import type { Engine } from './database.ts';

/**
 * Runs a one-row insert and answers the serial id it drew: MariaDB reports it as the insert id,
 * PostgreSQL and SQLite return the column.
 */
export async function insertedId(engine: Engine, insert: InsertQueryBuilder<any, any, any>, key: string): Promise<number> {
  if (engine === 'mysql') return Number((await insert.executeTakeFirstOrThrow()).insertId);
  return Number(((await insert.returning(key).executeTakeFirstOrThrow()) as Record<string, unknown>)[key]);
}
