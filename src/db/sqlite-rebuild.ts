import { sql } from 'kysely';
import type { Model } from '../models/define-model.ts';
import type { DbExecutor } from './database.ts';
import { quoteIdent } from './column-sql.ts';
import { createTableSql } from './table-sql.ts';

/**
 * SQLite cannot change a column's declared type or a table's foreign keys in place. The table is
 * rebuilt by SQLite's documented procedure: create the new shape, copy the rows (SQLite converts
 * each value to the new column's affinity), drop the old table, rename the new one. The caller
 * runs it inside the sync's transaction with foreign keys off and checks them before commit; the
 * sync re-creates the indexes afterwards.
 */

/** True when the table's foreign keys differ from the ones the model declares. */
export async function sqliteForeignKeysChanged(db: DbExecutor, model: Model): Promise<boolean> {
  const { rows } = await sql<{ table: string; from: string; to: string; on_delete: string }>`
    SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(${model.table})`.execute(db);
  const actual = new Set(rows.map((r) => `${r.from}>${r.table}.${r.to}:${r.on_delete.toUpperCase()}`));
  const declared = new Set<string>();
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.references) declared.add(`${name}>${field.references.table}.${field.references.field}:${field.references.onDelete}`);
  }
  return actual.size !== declared.size || [...declared].some((key) => !actual.has(key));
}

/** Rebuilds the table in the model's shape, keeping its rows and its AUTOINCREMENT counter. `present`: the model's columns the table has. */
export async function rebuildSqliteTable(db: DbExecutor, model: Model, present: Set<string>): Promise<void> {
  const temp = `${model.table}__rebuild`;
  const q = (name: string) => quoteIdent('sqlite', name);
  const run = (text: string) => sql.raw(text).execute(db);
  const shared = model.fieldNames.filter((name) => present.has(name)).map(q).join(', ');
  await run(`DROP TABLE IF EXISTS ${q(temp)}`);
  await run(createTableSql('sqlite', { ...model, table: temp }));
  await run(`INSERT INTO ${q(temp)} (${shared}) SELECT ${shared} FROM ${q(model.table)}`);
  if (Object.values(model.fields).some((field) => field.type === 'serial')) {
    // Keys of rows deleted before the rebuild stay used: carry the old counter over (the rename carries it on).
    await sql`UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ${model.table}), 0)) WHERE name = ${temp}`.execute(db);
    await sql`INSERT INTO sqlite_sequence (name, seq) SELECT ${temp}, seq FROM sqlite_sequence
      WHERE name = ${model.table} AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ${temp})`.execute(db);
  }
  await run(`DROP TABLE ${q(model.table)}`);
  await run(`ALTER TABLE ${q(temp)} RENAME TO ${q(model.table)}`);
}
