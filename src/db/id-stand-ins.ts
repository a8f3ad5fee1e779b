import { InsertQueryNode, sql, TableNode, type CompiledQuery, type RawBuilder } from 'kysely';
import { BoundedMap } from './bounded-map.ts';
import { insertRows } from './insert-shapes.ts';
import type { Statement } from './statement-batch.ts';
import { columnType } from './column-sql.ts';
import type { DbExecutor } from './engine.ts';
import type { SqlDialect } from './dialect.ts';
import type { Model } from '../models/define-model.ts';

/**
 * Numbers that stand in for ids the database assigns in the batch that also writes the rows
 * naming them: the event log's rows of a document committed with its batch (write-document.ts),
 * whose payloads hold the new header's, lines' and entry's ids before any is answered.
 *
 * A stand-in is a negative integer of 15 digits whose first 12 are drawn when the process starts,
 * so that no value of anyone's is one by chance, and all are of one length, so that none is a
 * prefix of another. Rows whose texts hold stand-ins are inserted by SQL that replaces each by its
 * id, read once for the statement (`insert`), and the texts read back with the ids as answered
 * (`answered`).
 */
const BASE = -(100_000_000_000 + Math.floor(Math.random() * 800_000_000_000)) * 1000;
const MAX = 1000;
/** What every stand-in's text starts with: all but its last three digits, which are its index. */
const PREFIX = String(BASE).slice(0, -3);
/** The statements' texts by shape (`insert`). */
const SHAPES = new BoundedMap<string, string>(200);
const TEXTUAL = new Set(['string', 'text', 'json']);

export class IdStandIns {
  readonly #dialect: SqlDialect;
  readonly #tokens: string[] = [];
  readonly #expressions: RawBuilder<unknown>[] = [];
  readonly #answers: Array<() => unknown> = [];

  constructor(dialect: SqlDialect) {
    this.#dialect = dialect;
  }

  /** A stand-in for the id `expression` reads in SQL, and `answer` gives once the batch is answered. */
  add(expression: RawBuilder<unknown>, answer: () => unknown): number {
    const index = this.#tokens.length;
    if (index >= MAX) throw new Error(`more than ${MAX} ids stood in for in one batch`);
    const value = BASE - index;
    this.#tokens.push(String(value));
    this.#expressions.push(expression);
    this.#answers.push(answer);
    return value;
  }

  /**
   * An INSERT of `rows` into `model`'s table whose text values may hold stand-ins: one
   * `INSERT ... SELECT` over the rows (in their order) joined to one row of the ids, each read once
   * by its expression (a stand-in replaced once per text holding it, not read again per text). Its
   * text is built by Kysely once per shape (the rows' count and columns, the stand-ins used and
   * their expressions' text) and kept, as insert-shapes.ts keeps inserts. On MariaDB, two
   * statements instead (`#insertWithVariables`).
   */
  insert(db: DbExecutor, model: Model, rows: ReadonlyArray<Record<string, unknown>>): Statement[] {
    const columns = Object.keys(rows[0] ?? {});
    const used = this.#usedIn(rows, columns);
    if (this.#dialect.engine === 'mysql') return this.#insertWithVariables(db, model, rows, used);
    const parts = used.map((index) => this.#expressions[index]!.compile(db));
    // In the text's order: the rows' values (the select list before them holds none), then the ids' expressions'.
    const parameters = [...rows.flatMap((row) => columns.map((column) => row[column] ?? null)), ...parts.flatMap((part) => part.parameters)];
    const key = [this.#dialect.engine, model.table, rows.length, columns.join(','), used.join(','), ...parts.map((part) => part.sql)].join('\u0001');
    let text = SHAPES.get(key);
    if (text === undefined) {
      const compiled = this.#statement(model, rows, columns, used).compile(db);
      if (compiled.parameters.length !== parameters.length || compiled.parameters.some((value, index) => value !== parameters[index])) return [compiled];
      SHAPES.set(key, (text = compiled.sql));
    }
    // Told as an insert into the table (write-tracker.ts reads the node, not the text).
    return [{ sql: text, parameters, query: InsertQueryNode.create(TableNode.create(model.table)), queryId: { queryId: '' } } as unknown as CompiledQuery];
  }

  /** The indexes of the stand-ins the rows' texts hold, ascending: each text read once for their common start. */
  #usedIn(rows: ReadonlyArray<Record<string, unknown>>, columns: string[]): number[] {
    const used = new Set<number>();
    for (const row of rows) {
      for (const column of columns) {
        const text = row[column];
        if (typeof text !== 'string') continue;
        for (let at = text.indexOf(PREFIX); at >= 0; at = text.indexOf(PREFIX, at + 1)) {
          const index = Number(text.slice(at + PREFIX.length, at + PREFIX.length + 3));
          if (index < this.#tokens.length && text.startsWith(this.#tokens[index]!, at)) used.add(index);
        }
      }
    }
    return [...used].sort((a, b) => a - b);
  }

  /**
   * MariaDB: the ids read once into the session's variables (one statement), then the rows as a
   * plain multi-row INSERT whose texts replace each stand-in by its variable. An `INSERT ... SELECT`
   * over the rows would put them in an internal temporary table, on disk for texts this long.
   */
  #insertWithVariables(db: DbExecutor, model: Model, rows: ReadonlyArray<Record<string, unknown>>, used: number[]): Statement[] {
    if (!used.length) return [insertRows(db, model.table, rows as Array<Record<string, unknown>>)];
    const variable = (index: number) => sql.raw(`@invoicing_id${index}`);
    const capture = sql<Record<string, unknown>>`SELECT ${sql.join(used.map((index) => sql`${variable(index)} := ${this.#expressions[index]!}`))}`;
    const replaced = rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => {
      if (typeof value !== 'string') return [column, value];
      let out: RawBuilder<unknown> | string = value;
      for (const index of used) if (value.includes(this.#tokens[index]!)) out = sql`REPLACE(${out}, ${sql.lit(this.#tokens[index]!)}, COALESCE(${this.#dialect.text(variable(index))}, 'null'))`;
      return [column, out];
    })));
    return [capture, insertRows(db, model.table, replaced)];
  }

  #statement(model: Model, rows: ReadonlyArray<Record<string, unknown>>, columns: string[], used: number[]): RawBuilder<unknown> {
    const engine = this.#dialect.engine;
    // Every value typed as its column: PostgreSQL types an untyped parameter of a UNION as text.
    const typed = (column: string, value: unknown) => (engine === 'postgres' ? sql`CAST(${value} AS ${sql.raw(columnType(engine, model.fields[column]!))})` : sql`${value}`);
    const selects = rows.map((row, index) => sql`SELECT ${sql.lit(index)} AS ${sql.ref('n')}, ${sql.join(columns.map((column) => sql`${typed(column, row[column] ?? null)} AS ${sql.ref(column)}`))}`);
    const value = (column: string) => {
      let out: RawBuilder<unknown> = sql.ref(`v.${column}`);
      if (!TEXTUAL.has(model.fields[column]!.type)) return out;
      for (const index of used) out = sql`REPLACE(${out}, ${sql.lit(this.#tokens[index]!)}, COALESCE(${this.#dialect.text(sql.ref(`i.s${index}`))}, 'null'))`;
      return out;
    };
    // The ids' row: its LIMIT keeps it from being merged into the rows' select (each id read once).
    const ids = used.length ? sql`CROSS JOIN (SELECT ${sql.join(used.map((index) => sql`${this.#expressions[index]!} AS ${sql.ref(`s${index}`)}`))} LIMIT 1) i` : sql``;
    return sql`INSERT INTO ${sql.table(model.table)} (${sql.join(columns.map((column) => sql.ref(column)))})
      SELECT ${sql.join(columns.map(value))} FROM (${sql.join(selects, sql` UNION ALL `)}) v ${ids} ORDER BY v.n`;
  }

  /** `text` with each stand-in replaced by its id as answered (JSON's `null` for none). */
  answered(text: string): string {
    let out = text;
    this.#tokens.forEach((token, index) => {
      if (!out.includes(token)) return;
      const value = this.#answers[index]!();
      out = out.replaceAll(token, value === null || value === undefined ? 'null' : String(value));
    });
    return out;
  }
}
