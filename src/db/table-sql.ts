import type { Model } from '../models/define-model.ts';
import type { Engine } from './database.ts';
import { columnSql, quoteIdent } from './column-sql.ts';

/**
 * DDL derived from a model: the table, its unique constraints and indexes, its foreign keys. The
 * names are stable (the sync finds existing constraints by name), so never change how they are made.
 */

export function constraintName(prefix: string, table: string, columns: string[]): string {
  const name = `${prefix}_${table}_${columns.join('_')}`;
  // PostgreSQL and MySQL cut identifiers at 63/64 characters; keep names unique and short.
  if (name.length <= 60) return name;
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 50)}_${hash.toString(36)}`;
}

/**
 * Unique constraints and indexes a model's table should have, with their names: the model's
 * uniques and extra indexes, and an index per foreign key column. A plain index whose columns
 * begin another index or unique constraint is left out: the longer one answers the same lookups
 * (foreign key checks included, which need an index starting with the column), and every index is
 * one more write per insert.
 */
export function tableIndexes(model: Model): Array<{ name: string; columns: string[]; unique: boolean }> {
  const uniques = [
    ...Object.entries(model.fields).filter(([, field]) => field.unique).map(([name]) => [name]),
    ...(model.unique ?? []),
  ];
  const wanted = [
    ...(model.indexes ?? []),
    // Foreign key columns are indexed: RESTRICT/CASCADE checks and joins look them up.
    ...Object.entries(model.fields).filter(([, field]) => field.references && !field.primary).map(([name]) => [name]),
  ];
  const begins = (longer: string[], columns: string[]) => longer.length >= columns.length && columns.every((column, i) => longer[i] === column);
  const plain = wanted.filter((columns, i) =>
    !uniques.some((unique) => begins(unique, columns)) &&
    // Of two equal lists the first stays; a strictly longer one always covers.
    !wanted.some((other, j) => j !== i && begins(other, columns) && (other.length > columns.length || j < i)));
  return [
    ...uniques.map((columns) => ({ name: constraintName('uq', model.table, columns), columns, unique: true })),
    ...plain.map((columns) => ({ name: constraintName('ix', model.table, columns), columns, unique: false })),
  ];
}

export function foreignKeySql(engine: Engine, model: Model, column: string): string {
  const q = (name: string) => quoteIdent(engine, name);
  const ref = model.fields[column]!.references!;
  return `CONSTRAINT ${q(constraintName('fk', model.table, [column]))} FOREIGN KEY (${q(column)}) ` +
    `REFERENCES ${q(ref.table)} (${q(ref.field)}) ON DELETE ${ref.onDelete} ON UPDATE CASCADE`;
}

/**
 * CREATE TABLE for a model. On MySQL/MariaDB every ALTER rebuilds the table, so a new table gets
 * its indexes and foreign keys inline (the sync creates tables with FOREIGN_KEY_CHECKS=0, so the
 * order of creation does not matter); elsewhere they are added by the sync's later steps.
 */
export function createTableSql(engine: Engine, model: Model): string {
  const q = (name: string) => quoteIdent(engine, name);
  const parts = Object.entries(model.fields).map(([name, field]) => columnSql(engine, name, field));
  if (engine === 'mysql') {
    for (const index of tableIndexes(model)) parts.push(`${index.unique ? 'UNIQUE KEY' : 'KEY'} ${q(index.name)} (${index.columns.map(q).join(', ')})`);
    for (const [name, field] of Object.entries(model.fields)) if (field.references) parts.push(foreignKeySql(engine, model, name));
  }
  const suffix = engine === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
  return `CREATE TABLE ${q(model.table)} (${parts.join(', ')})${suffix}`;
}
