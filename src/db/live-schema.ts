import { sql } from 'kysely';
import type { DbExecutor, Engine } from './database.ts';

/** Table -> column -> its SQL type, spelt as `columnType` (column-sql.ts) spells the registry's. */
export type LiveColumns = Map<string, Map<string, string>>;

/** PostgreSQL's `information_schema` names for the types the registry declares. */
const PG_TYPES: Record<string, string> = {
  'character varying': 'VARCHAR',
  'time without time zone': 'TIME',
  'timestamp without time zone': 'TIMESTAMP',
};

function pgType(dataType: string, length: number | null): string {
  const base = PG_TYPES[dataType] ?? dataType.toUpperCase();
  return length != null && base === 'VARCHAR' ? `VARCHAR(${length})` : base;
}

/** MariaDB/MySQL `COLUMN_TYPE` (`int(11)`, `varchar(20)`, `tinyint(1)`) without integer display widths, but `TINYINT(1)` is our boolean. */
function mysqlType(columnType: string): string {
  const type = columnType.toUpperCase().replace(/^INTEGER\b/, 'INT');
  if (type === 'TINYINT(1)') return type;
  return type.replace(/^(TINYINT|SMALLINT|MEDIUMINT|INT|BIGINT)\(\d+\)/, '$1');
}

/** SQLite keeps the declared type as written: only spacing and case can differ. */
function sqliteType(declared: string): string {
  return declared.toUpperCase().replace(/\s+/g, ' ').replace(/\s*\(\s*/g, '(').replace(/\s*,\s*/g, ',').replace(/\s*\)/g, ')').trim();
}

/** Every table of the current schema with its columns and their types. */
export async function readLiveColumns(db: DbExecutor, engine: Engine): Promise<LiveColumns> {
  let rows: Array<{ t: string; c: string; type: string }>;
  if (engine === 'sqlite') {
    const result = await sql<{ t: string; c: string; ty: string }>`
      SELECT m.name AS t, p.name AS c, p.type AS ty FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`.execute(db);
    rows = result.rows.map((row) => ({ t: row.t, c: row.c, type: sqliteType(String(row.ty)) }));
  } else if (engine === 'postgres') {
    const result = await sql<{ t: string; c: string; ty: string; len: number | null }>`
      SELECT table_name AS t, column_name AS c, data_type AS ty, character_maximum_length AS len
      FROM information_schema.columns WHERE table_schema = current_schema()`.execute(db);
    rows = result.rows.map((row) => ({ t: row.t, c: row.c, type: pgType(String(row.ty), row.len == null ? null : Number(row.len)) }));
  } else {
    const result = await sql<{ t: string; c: string; ty: string }>`
      SELECT table_name AS t, column_name AS c, column_type AS ty FROM information_schema.columns WHERE table_schema = DATABASE()`.execute(db);
    rows = result.rows.map((row) => ({ t: row.t, c: row.c, type: mysqlType(String(row.ty)) }));
  }
  const tables: LiveColumns = new Map();
  for (const row of rows) {
    const table = String(row.t);
    if (!tables.has(table)) tables.set(table, new Map());
    tables.get(table)!.set(String(row.c), row.type);
  }
  return tables;
}

/** Names of the indexes and constraints of the current schema (the sync finds its own by name). */
export async function readLiveConstraints(db: DbExecutor, engine: Engine): Promise<Set<string>> {
  const query =
    engine === 'sqlite'
      ? sql<{ n: string }>`SELECT name AS n FROM sqlite_master WHERE type = 'index'`
      : engine === 'postgres'
        ? sql<{ n: string }>`SELECT indexname AS n FROM pg_indexes WHERE schemaname = current_schema()
            UNION SELECT conname AS n FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace WHERE s.nspname = current_schema()`
        : sql<{ n: string }>`SELECT index_name AS n FROM information_schema.statistics WHERE table_schema = DATABASE()
            UNION SELECT constraint_name AS n FROM information_schema.table_constraints WHERE table_schema = DATABASE()`;
  const { rows } = await query.execute(db);
  return new Set(rows.map((row) => String(row.n)));
}

/** The schema's indexes named by the sync for plain indexes (`ix_`), with their tables. */
export async function readLivePlainIndexes(db: DbExecutor, engine: Engine): Promise<Array<{ name: string; table: string }>> {
  const query =
    engine === 'sqlite'
      ? sql<{ n: string; t: string }>`SELECT name AS n, tbl_name AS t FROM sqlite_master WHERE type = 'index'`
      : engine === 'postgres'
        ? sql<{ n: string; t: string }>`SELECT indexname AS n, tablename AS t FROM pg_indexes WHERE schemaname = current_schema()`
        : sql<{ n: string; t: string }>`SELECT DISTINCT index_name AS n, table_name AS t FROM information_schema.statistics WHERE table_schema = DATABASE()`;
  const { rows } = await query.execute(db);
  return rows.map((row) => ({ name: String(row.n), table: String(row.t) })).filter((index) => index.name.startsWith('ix_'));
}
