import { sql } from 'kysely';
import { defineModel } from '../models/define-model.ts';
import { f } from '../models/fields.ts';
import type { DbExecutor, Engine } from './database.ts';

/**
 * The last code handed out per generated column (`clientes.codcliente`, `variantes.referencia`).
 * Service bookkeeping of the data layer, part of every registry.
 */
export const codeCounterModel = defineModel({
  name: 'CodeCounter',
  table: 'code_counters',
  internal: true,
  fields: {
    name: f.string(100, { primary: true }),
    value: f.double({ notNull: true, default: 0 }),
  },
});

export interface CodeColumn {
  table: string;
  column: string;
}

/** The largest purely numeric value of a text column (the reference's newCode reads this). */
async function maxNumeric(db: DbExecutor, engine: Engine, { table, column }: CodeColumn): Promise<number> {
  const col = sql.ref(column);
  const from = sql.table(table);
  const query =
    engine === 'sqlite'
      ? sql<{ m: unknown }>`SELECT MAX(CAST(${col} AS INTEGER)) AS m FROM ${from} WHERE ${col} <> '' AND ${col} NOT GLOB '*[^0-9]*' AND length(${col}) < 16`
      : engine === 'postgres'
        ? sql<{ m: unknown }>`SELECT MAX(CAST(${col} AS BIGINT)) AS m FROM ${from} WHERE ${col} ~ '^[0-9]{1,15}$'`
        : sql<{ m: unknown }>`SELECT MAX(CAST(${col} AS UNSIGNED)) AS m FROM ${from} WHERE ${col} REGEXP '^[0-9]{1,15}$'`;
  const { rows } = await query.execute(db);
  return Number(rows[0]?.m ?? 0);
}

/** Whether a committed row already holds this code. */
export async function codeTaken(db: DbExecutor, target: CodeColumn, code: string): Promise<boolean> {
  return (await db.selectFrom(target.table).select(target.column).where(target.column, '=', code).executeTakeFirst()) !== undefined;
}

/**
 * The next free numeric code of a column, in the caller's transaction: the counter row is locked
 * (PostgreSQL and MariaDB; SQLite has one writer) until the transaction ends, so concurrent
 * creations take turns and never compute the same code; codes a client chose itself are skipped.
 * The table is scanned once, when the counter is first created; afterwards the cost does not grow
 * with the table.
 */
export async function nextCode(db: DbExecutor, engine: Engine, target: CodeColumn): Promise<string> {
  const name = `${target.table}.${target.column}`;
  const locked = () => {
    const query = db.selectFrom('code_counters').select('value').where('name', '=', name);
    return (engine === 'sqlite' ? query : query.forUpdate()).executeTakeFirst();
  };
  let row = await locked();
  if (!row) {
    const start = await maxNumeric(db, engine, target);
    const insert = db.insertInto('code_counters').values({ name, value: start });
    await (engine === 'mysql' ? insert.ignore() : insert.onConflict((oc) => oc.column('name').doNothing())).execute();
    row = await locked();
  }
  let candidate = Number(row!.value) + 1;
  // Taken by a code a client chose (or an import): jump past the highest numeric code at once
  // rather than walking through them one query at a time while holding the lock.
  if (await codeTaken(db, target, String(candidate))) candidate = Math.max(candidate, (await maxNumeric(db, engine, target)) + 1);
  while (await codeTaken(db, target, String(candidate))) candidate++;
  await db.updateTable('code_counters').set({ value: candidate }).where('name', '=', name).execute();
  return String(candidate);
}

/**
 * Takes a named lock for the rest of the transaction (PostgreSQL, MariaDB; SQLite has one writer):
 * the row `name` of this table, created when missing, locked by the upsert that touches it. For
 * work that must be serialised where no row of its own exists yet (the first sequence of a serie),
 * on a row no other table references (a foreign key's shared lock never waits for it).
 */
export async function namedLock(db: DbExecutor, engine: Engine, name: string): Promise<void> {
  if (engine === 'sqlite') return;
  const insert = db.insertInto(codeCounterModel.table).values({ name: `lock:${name}`.slice(0, 100), value: 0 });
  await (engine === 'mysql'
    ? insert.onDuplicateKeyUpdate({ value: sql`value` })
    : insert.onConflict((oc) => oc.column('name').doUpdateSet({ value: sql`${sql.ref(codeCounterModel.table)}.value` }))).execute();
}
