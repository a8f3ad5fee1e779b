import { sql, type Expression, type InsertQueryBuilder, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Engine } from './engine.ts';

/**
 * The SQL the three engines spell differently, in one place: domain code asks for the operation
 * (lock these rows, insert unless present, the larger of two values ...), never for the engine.
 */
export interface SqlDialect {
  engine: Engine;
  /** The select, locking what it reads until the transaction ends (SQLite has one writer: no lock needed). */
  locking<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * The select, locking what it reads and skipping rows another transaction holds (a queue's
   * workers taking different rows); SQLite has one writer, so its transaction alone keeps others out.
   */
  claiming<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * The select, locking what it reads as inserting a row that references it does (PostgreSQL
   * `FOR KEY SHARE`, InnoDB's shared lock): shared with other such readers and inserts, held
   * until the transaction ends, waited for by `locking` and waiting for it.
   */
  referencing<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** The insert, doing nothing when a row with the same unique `columns` exists. */
  insertIgnore<DB, TB extends keyof DB, O>(insert: InsertQueryBuilder<DB, TB, O>, columns: string[]): InsertQueryBuilder<DB, TB, O>;
  /** The larger of two values. */
  greatest(a: Expression<unknown>, b: Expression<unknown>): RawBuilder<number>;
  /** A text column read as an integer (to compare codes and numbers numerically). */
  integer(expression: Expression<unknown>): RawBuilder<number>;
  /** An integer written as text, without padding (to compare it with a text column). */
  text(expression: Expression<unknown>): RawBuilder<string>;
  /** A boolean as this engine stores it (SQLite and MariaDB: 0/1). */
  boolean(value: boolean): boolean | number;
}

export function dialectFor(engine: Engine): SqlDialect {
  return {
    engine,
    locking: (query) => (engine === 'sqlite' ? query : query.forUpdate()),
    claiming: (query) => (engine === 'sqlite' ? query : query.forUpdate().skipLocked()),
    referencing: (query) => (engine === 'sqlite' ? query : engine === 'postgres' ? query.forKeyShare() : query.modifyEnd(sql`LOCK IN SHARE MODE`)),
    insertIgnore: (insert, columns) =>
      engine === 'mysql' ? insert.ignore() : insert.onConflict((oc) => oc.columns(columns as never).doNothing()),
    greatest: (a, b) => sql<number>`${sql.raw(engine === 'sqlite' ? 'MAX' : 'GREATEST')}(${a}, ${b})`,
    integer: (expression) => sql<number>`CAST(${expression} AS ${sql.raw(engine === 'mysql' ? 'SIGNED' : 'INTEGER')})`,
    text: (expression) => sql<string>`CAST(${expression} AS ${sql.raw(engine === 'mysql' ? 'CHAR' : 'TEXT')})`,
    boolean: (value) => (engine === 'postgres' ? value : value ? 1 : 0),
  };
}
