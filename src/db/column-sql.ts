import type { FieldDef } from '../models/fields.ts';
import type { Engine } from './database.ts';

/** The SQL type of a field on each engine (dates stay text on SQLite, where DATE would get numeric affinity). */
const TYPES: Record<Engine, Record<FieldDef['type'], (field: FieldDef) => string>> = {
  sqlite: {
    serial: () => 'INTEGER',
    integer: () => 'INTEGER',
    double: () => 'REAL',
    boolean: () => 'INTEGER',
    string: (f) => `VARCHAR(${f.length})`,
    text: () => 'TEXT',
    date: () => 'TEXT',
    time: () => 'TEXT',
    timestamp: () => 'TEXT',
    json: () => 'TEXT',
    binary: () => 'BLOB',
  },
  postgres: {
    serial: () => 'SERIAL',
    integer: () => 'INTEGER',
    double: () => 'DOUBLE PRECISION',
    boolean: () => 'BOOLEAN',
    string: (f) => `VARCHAR(${f.length})`,
    text: () => 'TEXT',
    date: () => 'DATE',
    time: () => 'TIME',
    timestamp: () => 'TIMESTAMP',
    json: () => 'TEXT',
    binary: () => 'BYTEA',
  },
  mysql: {
    serial: () => 'INT',
    integer: () => 'INT',
    double: () => 'DOUBLE',
    boolean: () => 'TINYINT(1)',
    string: (f) => `VARCHAR(${f.length})`,
    text: () => 'MEDIUMTEXT',
    date: () => 'DATE',
    time: () => 'TIME',
    timestamp: () => 'DATETIME',
    json: () => 'MEDIUMTEXT',
    binary: () => 'LONGBLOB',
  },
};

/** The SQL type the registry declares for a field on an engine (what a new column gets). */
export function columnType(engine: Engine, field: FieldDef): string {
  return TYPES[engine][field.type](field);
}

export function quoteIdent(engine: Engine, name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/i.test(name)) throw new Error(`unsafe identifier ${name}`);
  return engine === 'mysql' ? `\`${name}\`` : `"${name}"`;
}

export function sqlLiteral(engine: Engine, value: string | number | boolean): string {
  if (typeof value === 'boolean') return engine === 'postgres' ? String(value).toUpperCase() : value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`bad default ${value}`);
    return String(value);
  }
  return `'${value.replace(/'/g, "''")}'`;
}

/** A zero value for NOT NULL columns added to tables that already hold rows. */
function fillValue(field: FieldDef): string | number | boolean {
  switch (field.type) {
    case 'boolean':
      return false;
    case 'integer':
    case 'double':
      return 0;
    case 'date':
      return '1970-01-01';
    case 'time':
      return '00:00:00';
    case 'timestamp':
      return '1970-01-01 00:00:00';
    default:
      return '';
  }
}

/**
 * Column definition for CREATE TABLE or ADD COLUMN. `adding` is set when the column is added to an
 * existing table: a NOT NULL column without a default then gets a zero default so rows survive.
 */
export function columnSql(engine: Engine, name: string, field: FieldDef, adding = false): string {
  const parts = [quoteIdent(engine, name), columnType(engine, field)];
  if (field.type === 'serial') {
    if (engine === 'sqlite') parts.push('PRIMARY KEY AUTOINCREMENT');
    else if (engine === 'mysql') parts.push('NOT NULL AUTO_INCREMENT PRIMARY KEY');
    else parts.push('PRIMARY KEY');
    return parts.join(' ');
  }
  if (!field.nullable) parts.push('NOT NULL');
  const textual = field.type === 'text' || field.type === 'json';
  let defaultValue = field.default;
  if (defaultValue === undefined && adding && !field.nullable) defaultValue = fillValue(field);
  // MySQL cannot give TEXT columns a literal default; the application fills them instead.
  if (defaultValue !== undefined && !(engine === 'mysql' && textual)) {
    parts.push(`DEFAULT ${sqlLiteral(engine, defaultValue)}`);
  }
  if (field.primary) parts.push('PRIMARY KEY');
  if (engine === 'sqlite' && field.references && (!adding || defaultValue === undefined)) {
    const ref = field.references;
    parts.push(
      `REFERENCES ${quoteIdent(engine, ref.table)}(${quoteIdent(engine, ref.field)}) ON DELETE ${ref.onDelete} ON UPDATE CASCADE`,
    );
  }
  return parts.join(' ');
}
