import { InsertQueryNode, type CompiledQuery, type DialectAdapter, type RawBuilder, type RootOperationNode } from 'kysely';
import { BoundedMap } from './bounded-map.ts';
import type { DbExecutor } from './engine.ts';
import type { Statement } from './statement-batch.ts';

/**
 * A shape's text as Kysely compiled it, how many values it binds, and an operation node naming its
 * table (what write-tracker.ts and the statement counter read; the first call's node would keep its
 * values alive); null: compiled by Kysely every time.
 */
type Shape = { sql: string; count: number; node: RootOperationNode } | null;

const shapesByAdapter = new WeakMap<DialectAdapter, BoundedMap<string, Shape>>();

/** Enough for the insert shapes a busy installation writes (least recently used dropped first); ad-hoc shapes cannot grow it forever. */
const CAPACITY = 500;
/** Larger statements (bulk inserts) are rare and gain little from the cache: they are not kept. */
const MAX_PARAMETERS = 1000;
const MAX_TEXT = 32_768;

type Row = Record<string, unknown>;

const isRawBuilder = (value: unknown): value is RawBuilder<unknown> => typeof value === 'object' && value !== null && 'isRawBuilder' in value;

const plain = (value: unknown) => value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean';

/**
 * An INSERT of `rows` into `table` (with `returning` when given), compiled once per shape.
 *
 * Building and compiling an INSERT with Kysely costs more than SQLite's own work for it (a
 * document's five lines: parsing every value, freezing every node, visiting the tree), and the
 * text of an INSERT of plain values depends only on its table, its columns, how many rows and what
 * it returns. So the first INSERT of a shape is compiled by Kysely and its text kept; the next
 * ones bind their values to that text. Kept only if Kysely's parameters are exactly the rows'
 * values in column order (so the cache can never bind a value to the wrong column); a shape whose
 * compile does not match is compiled by Kysely every time. Rows must share one column list in one
 * order, and hold plain values or SQL expressions (`sql` templates, whose text is then part of
 * the shape) only, no `undefined`; otherwise Kysely builds the statement as before. The text is
 * the same string object each time, which also makes the prepared-statement cache's lookup cheap
 * (sqlite-statement-cache.ts).
 */
export function insertRows(db: DbExecutor, table: string, rows: Row[], returning?: string): Statement {
  const columns = Object.keys(rows[0] ?? {});
  const build = () => {
    const insert = db.insertInto(table).values(rows);
    return returning ? insert.returning(returning) : insert;
  };
  if (!columns.length) return build();
  const parameters: unknown[] = [];
  let expressions = '';
  const parts = new Map<RawBuilder<unknown>, CompiledQuery>();
  for (const row of rows) {
    let count = 0;
    for (const column in row) {
      if (column !== columns[count++]) return build();
      const value = row[column];
      if (plain(value)) {
        parameters.push(value);
      } else if (isRawBuilder(value)) {
        // An SQL expression (a sub-select naming a row written before): its text is part of the
        // shape. Compiled once per call: a document's lines all name their header by the same one.
        let part = parts.get(value);
        if (!part) parts.set(value, (part = value.compile(db)));
        expressions += `\u0002${parameters.length}\u0002${part.sql}`;
        parameters.push(...part.parameters);
      } else {
        return build();
      }
    }
    if (count !== columns.length) return build();
  }
  const { adapter } = db.getExecutor();
  let shapes = shapesByAdapter.get(adapter);
  if (!shapes) shapesByAdapter.set(adapter, (shapes = new BoundedMap(CAPACITY)));
  const key = `${table}\u0001${rows.length}\u0001${returning ?? ''}\u0001${columns.join('\u0001')}${expressions}`;
  const shape = shapes.get(key);
  // The count guards the key: names are joined, so a name holding a separator cannot bind a
  // statement's values to another shape's text.
  if (shape && shape.count === parameters.length) return { sql: shape.sql, parameters, query: shape.node, queryId: { queryId: '' } } as unknown as CompiledQuery;
  const compiled = build().compile();
  if (shape === undefined && parameters.length <= MAX_PARAMETERS && compiled.sql.length <= MAX_TEXT && compiled.query.kind === 'InsertQueryNode') {
    const matches = compiled.parameters.length === parameters.length && compiled.parameters.every((value, index) => value === parameters[index]);
    shapes.set(key, matches ? { sql: compiled.sql, count: parameters.length, node: InsertQueryNode.create(compiled.query.into!) } : null);
  }
  return compiled;
}
