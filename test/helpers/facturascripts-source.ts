import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { scratchDatabase, type ScratchDatabase } from './engines.ts';

/**
 * A database shaped as an installation of the established system is, on MariaDB or PostgreSQL:
 * its 83 core tables built from their own definitions (test/vendor/facturascripts-tables, copied
 * from its source), with their keys, unique constraints and foreign keys, for an import to read.
 * The data goes in with plain inserts, as that system writes it (dates as dates, booleans as its
 * engine keeps them, codes as text): see facturascripts-books.ts.
 */

const TABLES = path.resolve(import.meta.dirname, '../vendor/facturascripts-tables');

export interface SourceColumn {
  name: string;
  type: string;
  notNull: boolean;
  default?: string;
}

export interface SourceTableDefinition {
  name: string;
  columns: SourceColumn[];
  primaryKey: string;
  uniques: string[][];
  foreignKeys: Array<{ name: string; columns: string[]; table: string; references: string[]; onDelete: string }>;
}

const list = (text: string) => text.split(',').map((part) => part.trim());

/** The table definitions (one XML file each), read once. */
export function sourceDefinitions(): SourceTableDefinition[] {
  return fs.readdirSync(TABLES).filter((file) => file.endsWith('.xml')).sort().map((file) => {
    const xml = fs.readFileSync(path.join(TABLES, file), 'utf8');
    const columns = [...xml.matchAll(/<column>([\s\S]*?)<\/column>/g)].map(([, body]) => ({
      name: /<name>([^<]+)<\/name>/.exec(body!)![1]!.trim(),
      type: /<type>([^<]+)<\/type>/.exec(body!)![1]!.trim(),
      notNull: /<null>\s*NO\s*<\/null>/.test(body!),
      default: /<default>([^<]*)<\/default>/.exec(body!)?.[1]?.trim(),
    }));
    const constraints = [...xml.matchAll(/<constraint>([\s\S]*?)<\/constraint>/g)].map(([, body]) => ({
      name: /<name>([^<]+)<\/name>/.exec(body!)![1]!.trim(), type: /<type>([^<]+)<\/type>/.exec(body!)![1]!.trim(),
    }));
    const primary = constraints.map((c) => /^PRIMARY KEY \(([^)]+)\)/.exec(c.type)?.[1]).find(Boolean);
    return {
      name: file.replace(/\.xml$/, ''),
      columns,
      primaryKey: primary!.trim(),
      uniques: constraints.flatMap((c) => /^UNIQUE \(([^)]+)\)/.exec(c.type)?.[1] ? [list(/^UNIQUE \(([^)]+)\)/.exec(c.type)![1]!)] : []),
      foreignKeys: constraints.flatMap((c) => {
        const match = /^FOREIGN KEY \(([^)]+)\) REFERENCES (\w+) \(([^)]+)\)(?: ON DELETE (CASCADE|SET NULL|RESTRICT|NO ACTION))?/i.exec(c.type);
        return match ? [{ name: c.name, columns: list(match[1]!), table: match[2]!, references: list(match[3]!), onDelete: (match[4] ?? 'RESTRICT').toUpperCase() }] : [];
      }),
    };
  });
}

export type SourceEngine = 'mysql' | 'postgres';

/** A column's type as the system creates it on each engine. */
function sqlType(engine: SourceEngine, type: string): string {
  const t = type.toLowerCase();
  if (t === 'serial') return engine === 'mysql' ? 'INT NOT NULL AUTO_INCREMENT' : 'SERIAL';
  if (t === 'integer' || t === 'int') return engine === 'mysql' ? 'INT' : 'INTEGER';
  if (t === 'double precision') return engine === 'mysql' ? 'DOUBLE' : 'DOUBLE PRECISION';
  if (t === 'boolean' || t === 'bool') return engine === 'mysql' ? 'TINYINT(1)' : 'BOOLEAN';
  if (t === 'timestamp') return engine === 'mysql' ? 'DATETIME' : 'TIMESTAMP';
  if (/^character varying\(\d+\)$/.test(t)) return `VARCHAR(${/\d+/.exec(t)![0]})`;
  if (['text', 'date', 'time'].includes(t)) return t.toUpperCase();
  throw new Error(`unknown type ${type}`);
}

export const quote = (engine: SourceEngine, name: string) => (engine === 'mysql' ? `\`${name}\`` : `"${name}"`);

/** The statements that create the tables, then their foreign keys (so that their order does not matter). */
export function sourceDdl(engine: SourceEngine, tables: SourceTableDefinition[]): string[] {
  const q = (name: string) => quote(engine, name);
  const creates = tables.map((table) => {
    const columns = table.columns.map((column) => {
      const type = sqlType(engine, column.type);
      const serial = column.type.toLowerCase() === 'serial';
      const nullity = serial ? '' : column.notNull ? ' NOT NULL' : ' NULL';
      const def = column.default !== undefined && !serial ? ` DEFAULT ${/^-?\d+(\.\d+)?$/.test(column.default) ? column.default : column.default.toLowerCase() === 'true' || column.default.toLowerCase() === 'false' ? (engine === 'mysql' ? (column.default.toLowerCase() === 'true' ? '1' : '0') : column.default.toUpperCase()) : `'${column.default}'`}` : '';
      return `${q(column.name)} ${type}${nullity}${def}`;
    });
    const keys = [`PRIMARY KEY (${q(table.primaryKey)})`, ...table.uniques.map((columns) => `UNIQUE (${columns.map(q).join(', ')})`)];
    return `CREATE TABLE ${q(table.name)} (${[...columns, ...keys].join(', ')})${engine === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4' : ''}`;
  });
  const foreign = tables.flatMap((table) => table.foreignKeys.map((fk) =>
    `ALTER TABLE ${q(table.name)} ADD CONSTRAINT ${q(fk.name)} FOREIGN KEY (${fk.columns.map(q).join(', ')}) REFERENCES ${q(fk.table)} (${fk.references.map(q).join(', ')}) ON DELETE ${fk.onDelete} ON UPDATE CASCADE`));
  return [...creates, ...foreign];
}

type Row = Record<string, unknown>;

/** A connection to a source database, for building it and for reading it from a test. */
export interface SourceConnection {
  engine: SourceEngine;
  url: string;
  /** Runs a statement with `?` placeholders (turned into `$n` on PostgreSQL). */
  query(text: string, params?: unknown[]): Promise<Row[]>;
  /** Inserts rows (all with the same columns) in statements of a few hundred rows. */
  insert(table: string, rows: Row[]): Promise<void>;
  close(): Promise<void>;
}

export async function connectSource(engine: SourceEngine, url: string): Promise<SourceConnection> {
  const q = (name: string) => quote(engine, name);
  let query: SourceConnection['query'];
  let close: () => Promise<void>;
  if (engine === 'mysql') {
    const connection = await mysql.createConnection({ uri: url, dateStrings: true, multipleStatements: false });
    query = async (text, params = []) => (await connection.query(text, params))[0] as Row[];
    close = () => connection.end();
  } else {
    const client = new pg.Client({ connectionString: url });
    client.setTypeParser(1082, (value) => value);
    client.setTypeParser(1114, (value) => value);
    await client.connect();
    query = async (text, params = []) => {
      let n = 0;
      return (await client.query(text.replace(/\?/g, () => `$${++n}`), params)).rows as Row[];
    };
    close = () => client.end();
  }
  const insert = async (table: string, rows: Row[]) => {
    if (!rows.length) return;
    const columns = Object.keys(rows[0]!);
    const size = Math.max(1, Math.floor(20_000 / columns.length));
    for (let start = 0; start < rows.length; start += size) {
      const chunk = rows.slice(start, start + size);
      const values = chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
      await query(`INSERT INTO ${q(table)} (${columns.map(q).join(', ')}) VALUES ${values}`, chunk.flatMap((row) => columns.map((column) => row[column] ?? null)));
    }
  };
  return { engine, url, query, insert, close };
}

/** A new source database (a scratch database of the test engine) with the system's tables, empty. */
export async function createSource(engine: SourceEngine): Promise<{ connection: SourceConnection; scratch: ScratchDatabase; tables: SourceTableDefinition[] }> {
  const scratch = await scratchDatabase(engine);
  const connection = await connectSource(engine, scratch.url);
  const tables = sourceDefinitions();
  for (const statement of sourceDdl(engine, tables)) await connection.query(statement);
  return { connection, scratch, tables };
}

/**
 * A checksum of every table of a source: its rows read in key order, hashed in the test (the same
 * text on both runs whatever the engine's own checksum facility): what an import must leave as it was.
 */
export async function sourceChecksums(connection: SourceConnection): Promise<Record<string, string>> {
  const { createHash } = await import('node:crypto');
  const names = connection.engine === 'mysql'
    ? (await connection.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name')).map((row) => String(row.name))
    : (await connection.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name')).map((row) => String(row.name));
  const sums: Record<string, string> = {};
  for (const name of names) {
    const rows = await connection.query(`SELECT * FROM ${quote(connection.engine, name)} ORDER BY 1`);
    sums[name] = createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  }
  return sums;
}

/**
 * A user of the source that may only read it (`SELECT` on its tables): what an import needs and
 * all an operator should give it. Answers its URL, and how to drop the user once the source is gone.
 */
export async function readOnlyUser(connection: SourceConnection): Promise<{ url: string; drop: (admin: SourceConnection | string) => Promise<void> }> {
  const name = `reader_${Math.random().toString(36).slice(2, 10)}`;
  const url = new URL(connection.url);
  if (connection.engine === 'mysql') {
    const database = url.pathname.slice(1);
    await connection.query(`CREATE USER '${name}'@'%' IDENTIFIED BY 'reads-only'`);
    await connection.query(`GRANT SELECT ON \`${database}\`.* TO '${name}'@'%'`);
  } else {
    await connection.query(`CREATE ROLE ${name} LOGIN PASSWORD 'reads-only'`);
    await connection.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${name}`);
  }
  url.username = name;
  url.password = 'reads-only';
  return {
    url: url.toString(),
    async drop(admin) {
      const other = typeof admin === 'string' ? await connectSource(connection.engine, admin) : admin;
      try {
        await other.query(connection.engine === 'mysql' ? `DROP USER IF EXISTS '${name}'@'%'` : `DROP ROLE IF EXISTS ${name}`);
      } finally {
        if (typeof admin === 'string') await other.close();
      }
    },
  };
}
