import { sql } from 'kysely';
import type { Model } from '../models/define-model.ts';
import type { DbExecutor, Engine } from './database.ts';
import { columnType, quoteIdent } from './column-sql.ts';
import type { LiveColumns } from './live-schema.ts';

/**
 * Column type changes between the registry and a live database: which are safe to apply, how to
 * apply them on PostgreSQL and MariaDB/MySQL (SQLite rebuilds the table, see sqlite-rebuild.ts),
 * and the refusal of those that could lose data.
 *
 * Safe (applied by the sync): a longer varchar; varchar to text; a larger text (MySQL's TEXT to
 * MEDIUMTEXT); integer to double, to text, or to a varchar of at least 11 characters (every 32-bit
 * integer fits). A primary or foreign key column may only widen within its kind (its
 * counterpart must keep a comparable type). Anything else (a shorter varchar,
 * text to varchar, double to integer, a boolean ...) is refused unless a before-sync migration
 * lists the column in `converts`, having made the values fit. Nullability and defaults are kept
 * as the live column has them: this is a type change only.
 */

export interface TypeChange {
  table: string;
  column: string;
  /** The live type and the registry's, as `columnType` spells them. */
  from: string;
  to: string;
}

/** Thrown before any DDL when a column type change could lose data; names every such column. */
export class SchemaChangeRefusedError extends Error {
  override name = 'SchemaChangeRefusedError';
  readonly columns: string[];
  constructor(changes: TypeChange[]) {
    const list = changes.map((change) => `${change.table}.${change.column} ${change.from} -> ${change.to}`).join(', ');
    super(
      `schema sync refused column type change(s) that could lose data: ${list}. Make the values fit in a ` +
        "before-sync migration that lists the column in `converts` (the sync then applies the type), or change the type in the migration itself",
    );
    this.columns = changes.map((change) => `${change.table}.${change.column}`);
  }
}

type Family = 'string' | 'text' | 'integer' | 'double' | 'other';

/** MySQL's text types by capacity; elsewhere TEXT is unbounded. */
const TEXT_SIZES: Record<string, number> = { TINYTEXT: 1, TEXT: 2, MEDIUMTEXT: 3, LONGTEXT: 4 };

function kindOf(engine: Engine, type: string): { family: Family; size: number } {
  const varchar = /^VARCHAR\((\d+)\)$/.exec(type);
  if (varchar) return { family: 'string', size: Number(varchar[1]) };
  if (type in TEXT_SIZES) return { family: 'text', size: engine === 'mysql' ? TEXT_SIZES[type]! : 4 };
  if (type === 'INTEGER' || type === 'INT') return { family: 'integer', size: 0 };
  if (type === (engine === 'postgres' ? 'DOUBLE PRECISION' : engine === 'mysql' ? 'DOUBLE' : 'REAL')) return { family: 'double', size: 0 };
  return { family: 'other', size: 0 };
}

function isSafe(engine: Engine, change: TypeChange, key: boolean): boolean {
  const from = kindOf(engine, change.from);
  const to = kindOf(engine, change.to);
  if (from.family === to.family && (from.family === 'string' || from.family === 'text')) return to.size >= from.size;
  if (key) return false;
  if (from.family === 'string' && to.family === 'text') return to.size >= 2;
  if (from.family === 'integer') {
    return to.family === 'double' || to.family === 'text' || (to.family === 'string' && to.size >= 11);
  }
  return false;
}

/** The registry's type as the live schema reports it (PostgreSQL's SERIAL is an INTEGER with a sequence). */
function declaredType(engine: Engine, model: Model, column: string): string {
  const type = columnType(engine, model.fields[column]!);
  return engine === 'postgres' && type === 'SERIAL' ? 'INTEGER' : type;
}

/**
 * The type changes the registry asks of existing columns. Throws SchemaChangeRefusedError, naming
 * every column, when one is unsafe and not listed in `converts` (`table.column`).
 */
export function planTypeChanges(engine: Engine, models: Model[], live: LiveColumns, converts: Set<string>): TypeChange[] {
  const changes: TypeChange[] = [];
  const refused: TypeChange[] = [];
  for (const model of models) {
    const columns = live.get(model.table);
    if (!columns) continue;
    for (const column of model.fieldNames) {
      const from = columns.get(column);
      if (from === undefined) continue;
      const change = { table: model.table, column, from, to: declaredType(engine, model, column) };
      if (change.from === change.to) continue;
      const key = model.primaryKey === column || Boolean(model.fields[column]!.references);
      if (isSafe(engine, change, key) || converts.has(`${model.table}.${column}`)) changes.push(change);
      else refused.push(change);
    }
  }
  if (refused.length) throw new SchemaChangeRefusedError(refused);
  return changes;
}

/**
 * PostgreSQL converts by its assignment casts, which fail rather than truncate; those it lacks
 * (text to a number, anything to or from boolean) get an explicit cast.
 */
function pgAlter(change: TypeChange): string {
  const q = (name: string) => quoteIdent('postgres', name);
  const textual = (type: string) => type === 'TEXT' || type.startsWith('VARCHAR');
  const needsCast = (textual(change.from) && !textual(change.to)) || change.from === 'BOOLEAN' || change.to === 'BOOLEAN';
  return `ALTER COLUMN ${q(change.column)} TYPE ${change.to}${needsCast ? ` USING ${q(change.column)}::${change.to}` : ''}`;
}

/**
 * MODIFY COLUMN restates the whole column: take the server's own definition (SHOW CREATE TABLE,
 * so nullability, default, charset and collation stay exactly as they are) and swap the type. A
 * text column cannot keep a literal default on MySQL: it is dropped, as a new table would have it.
 */
async function mysqlModify(db: DbExecutor, table: string, changes: TypeChange[]): Promise<string[]> {
  const { rows } = await sql.raw<Record<string, string>>(`SHOW CREATE TABLE ${quoteIdent('mysql', table)}`).execute(db);
  const createSql = String(rows[0]!['Create Table']);
  return changes.map((change) => {
    const line = new RegExp(`^\\s*\`${change.column}\` (\\S+)(.*?),?$`, 'm').exec(createSql);
    if (!line) throw new Error(`cannot find ${table}.${change.column} in SHOW CREATE TABLE`);
    let rest = line[2]!;
    if (kindOf('mysql', change.to).family === 'text') rest = rest.replace(/ DEFAULT (?:'(?:[^']|'')*'|\S+)/, '');
    return `MODIFY COLUMN ${quoteIdent('mysql', change.column)} ${change.to}${rest}`;
  });
}

/** Applies one table's type changes in one ALTER TABLE (PostgreSQL and MariaDB/MySQL only). */
export async function alterColumnTypes(db: DbExecutor, engine: Engine, table: string, changes: TypeChange[]): Promise<void> {
  if (engine === 'sqlite') throw new Error('SQLite changes column types by rebuilding the table');
  // Both engines round a fraction into an integer without complaint: a value that does not fit
  // fails the sync instead, as for text that would not fit.
  const rounded = [];
  for (const change of changes.filter((c) => /DOUBLE|REAL|NUMERIC|DECIMAL/i.test(c.from) && /INT/i.test(c.to))) {
    const column = sql.ref(change.column);
    const { rows } = await sql`SELECT 1 AS found FROM ${sql.table(table)} WHERE ${column} <> ROUND(${column}) LIMIT 1`.execute(db);
    if (rows.length) rounded.push(change);
  }
  if (rounded.length) throw new SchemaChangeRefusedError(rounded);
  const clauses = engine === 'postgres' ? changes.map(pgAlter) : await mysqlModify(db, table, changes);
  await sql.raw(`ALTER TABLE ${quoteIdent(engine, table)} ${clauses.join(', ')}`).execute(db);
}
