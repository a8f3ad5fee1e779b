import type mysqlTypes from 'mysql2/promise';
import type pgTypes from 'pg';
import { lazyLibrary } from '../../lazy-library.ts';

/** The source's drivers, loaded when an import opens one (most processes never do: docs/performance.md, memory at rest). */
const mysql = lazyLibrary<typeof mysqlTypes>('mysql2/promise');
const pg = lazyLibrary<typeof pgTypes>('pg');

/**
 * The database of an installation of the established system, read for an import: only reads, in
 * one consistent snapshot (a repeatable-read, read-only transaction opened on connecting and held
 * until `close`), so that every table is read as of one moment however long the import takes and
 * whatever that system does meanwhile. A user that may only `SELECT` is enough.
 */

type Row = Record<string, unknown>;

export type SourceEngine = 'mysql' | 'postgres';

export interface SourceTable {
  name: string;
  /** Columns in their order, with the engine's type name (`int`, `varchar`, `double precision` ...). */
  columns: Array<{ name: string; type: string }>;
  /** The primary key's columns (the system's tables have one column). */
  primaryKey: string[];
}

export interface SourceDatabase {
  engine: SourceEngine;
  /** The URL without its password, for the report. */
  shown: string;
  tables(): Promise<SourceTable[]>;
  count(table: string): Promise<number>;
  /** The rows of a table in key order, `size` at a time (keyset pages: no table is read whole). */
  batches(table: SourceTable, columns: readonly string[], size: number): AsyncGenerator<Row[]>;
  /** A read of the verification: `?` placeholders, identifiers quoted with `quote`. */
  query(text: string, params?: readonly unknown[]): Promise<Row[]>;
  quote(name: string): string;
  close(): Promise<void>;
}

/** The URL's engine, or a clear refusal. */
export function sourceEngineOf(url: string): SourceEngine {
  if (/^(mysql|mariadb):\/\//i.test(url)) return 'mysql';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  throw new Error(`--from must be a mysql://user:pass@host:port/db or postgres://user:pass@host:port/db URL, not "${shownUrl(url)}"`);
}

/** The URL as a report may show it: no password, and no query (where `password`, `sslkey` ... may be). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/.*@/, '//***@').replace(/\?.*$/, '');
  }
}

export async function openSource(url: string): Promise<SourceDatabase> {
  const engine = sourceEngineOf(url);
  return engine === 'mysql' ? openMysql(url) : openPostgres(url);
}

type Query = (text: string, params?: readonly unknown[]) => Promise<Row[]>;

/** What each engine gives: its connection's query, identifier quoting, catalogue reads and end. */
interface EngineSource {
  engine: SourceEngine;
  url: string;
  query: Query;
  quote: (name: string) => string;
  /** The current database's columns (`t`, `c`, `d`: table, column, type) and primary keys (`t`, `c`), in order. */
  columnsSql: string;
  keysSql: string;
  end: () => Promise<void>;
}

function sourceDatabase({ engine, url, query, quote, columnsSql, keysSql, end }: EngineSource): SourceDatabase {
  return {
    engine,
    shown: shownUrl(url),
    tables: async () => tablesOf(await query(columnsSql), await query(keysSql)),
    count: async (table) => Number((await query(`SELECT COUNT(*) AS n FROM ${quote(table)}`))[0]!.n),
    batches: (table, columns, size) => keysetBatches(query, quote, table, columns, size),
    query,
    quote,
    async close() {
      await query('ROLLBACK').catch(() => {});
      await end();
    },
  };
}

async function openMysql(url: string): Promise<SourceDatabase> {
  const normalized = url.replace(/^mariadb:/i, 'mysql:');
  // Dates, times and timestamps as the text the server keeps; DECIMAL and BIGINT as numbers.
  const connection = await mysql().createConnection({ uri: normalized, dateStrings: true, decimalNumbers: true, supportBigNumbers: true, bigNumberStrings: false });
  const query: Query = async (text, params = []) => (await connection.query(text, [...params]))[0] as Row[];
  try {
    await query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  } catch (error) {
    await connection.end();
    throw error;
  }
  return sourceDatabase({
    engine: 'mysql', url, query, quote: (name) => `\`${name.replace(/`/g, '``')}\``, end: () => connection.end(),
    columnsSql: 'SELECT table_name AS t, column_name AS c, data_type AS d FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position',
    keysSql: `SELECT table_name AS t, column_name AS c FROM information_schema.key_column_usage WHERE table_schema = DATABASE() AND constraint_name = 'PRIMARY' ORDER BY table_name, ordinal_position`,
  });
}

async function openPostgres(url: string): Promise<SourceDatabase> {
  const client = new (pg().Client)({ connectionString: url });
  // Dates and timestamps as the text the server keeps (no time zone applied); bigints as numbers.
  for (const oid of [1082, 1083, 1114, 1184, 1266]) client.setTypeParser(oid, (value: string) => value);
  client.setTypeParser(20, (value: string) => Number(value));
  client.setTypeParser(1700, (value: string) => Number(value));
  await client.connect();
  const query: Query = async (text, params = []) => {
    let n = 0;
    return (await client.query(text.replace(/\?/g, () => `$${++n}`), [...params])).rows as Row[];
  };
  try {
    await query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (error) {
    await client.end();
    throw error;
  }
  return sourceDatabase({
    engine: 'postgres', url, query, quote: (name) => `"${name.replace(/"/g, '""')}"`, end: () => client.end(),
    columnsSql: 'SELECT table_name AS t, column_name AS c, data_type AS d FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position',
    keysSql: `SELECT k.table_name AS t, k.column_name AS c FROM information_schema.table_constraints c
      JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema AND k.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND c.constraint_type = 'PRIMARY KEY' ORDER BY k.table_name, k.ordinal_position`,
  });
}

function tablesOf(columns: Row[], keys: Row[]): SourceTable[] {
  const tables = new Map<string, SourceTable>();
  for (const row of columns) {
    const name = String(row.t);
    let table = tables.get(name);
    if (!table) tables.set(name, (table = { name, columns: [], primaryKey: [] }));
    table.columns.push({ name: String(row.c), type: String(row.d).toLowerCase() });
  }
  for (const row of keys) tables.get(String(row.t))?.primaryKey.push(String(row.c));
  return [...tables.values()];
}

/**
 * A table's rows in key order, a page at a time, each page after the last key of the one before
 * (an index range, however deep into the table); a table without a single-column key is read in
 * pages of its rows' order by offset, which the snapshot keeps stable.
 */
async function* keysetBatches(query: Query, quote: (name: string) => string, table: SourceTable, columns: readonly string[], size: number): AsyncGenerator<Row[]> {
  const list = columns.map(quote).join(', ');
  const key = table.primaryKey.length === 1 ? table.primaryKey[0]! : undefined;
  if (!key) {
    for (let offset = 0; ; offset += size) {
      const rows = await query(`SELECT ${list} FROM ${quote(table.name)} ORDER BY ${columns.map((_, i) => String(i + 1)).join(', ')} LIMIT ${size} OFFSET ${offset}`);
      if (rows.length) yield rows;
      if (rows.length < size) return;
    }
  }
  const selected = columns.includes(key) ? list : `${list}, ${quote(key)}`;
  let last: unknown;
  for (;;) {
    const rows = await query(`SELECT ${selected} FROM ${quote(table.name)}${last === undefined ? '' : ` WHERE ${quote(key)} > ?`} ORDER BY ${quote(key)} LIMIT ${size}`, last === undefined ? [] : [last]);
    if (!rows.length) return;
    last = rows[rows.length - 1]![key];
    yield rows;
    if (rows.length < size) return;
  }
}
