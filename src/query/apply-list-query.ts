import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Engine } from '../db/database.ts';
import { toDbValue } from '../db/row-codec.ts';
import type { Model } from '../models/define-model.ts';
import type { Condition, ListQuery, Operator } from './list-query.ts';

const COMPARISONS: Partial<Record<Operator, '=' | '>' | '>=' | '<' | '<=' | '<>'>> = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  neq: '<>',
};

/** `%`, `_` and the escape character are literal in a "contains" search. */
function containsPattern(value: string): string {
  return `%${value.toLowerCase().replace(/[!%_]/g, (ch) => `!${ch}`)}%`;
}

/** The bound value of a condition (none for null checks). */
function parameterOf(engine: Engine, model: Model, c: Condition): unknown[] {
  if (c.op === 'null' || c.op === 'notnull') return [];
  if (c.op === 'like') return [containsPattern(String(c.value))];
  return [toDbValue(engine, model.fields[c.field]!, c.value)];
}

/** The parameters of `whereOf`, in the order the compiled SQL binds them. */
export function conditionParameters(engine: Engine, model: Model, query: Pick<ListQuery, 'where'>): unknown[] {
  return query.where.flatMap((group) => group.flatMap((c) => parameterOf(engine, model, c)));
}

function condition(eb: ExpressionBuilder<any, any>, engine: Engine, model: Model, c: Condition): Expression<SqlBool> {
  const column = sql.ref(c.field);
  if (c.op === 'null') return sql<SqlBool>`${column} IS NULL`;
  if (c.op === 'notnull') return sql<SqlBool>`${column} IS NOT NULL`;
  const field = model.fields[c.field]!;
  if (c.op === 'like') {
    const textual = field.type === 'string' || field.type === 'text';
    const target = textual ? column : sql`CAST(${column} AS ${sql.raw(engine === 'mysql' ? 'CHAR' : 'TEXT')})`;
    return sql<SqlBool>`LOWER(${target}) LIKE ${parameterOf(engine, model, c)[0]} ESCAPE '!'`;
  }
  return eb(c.field, COMPARISONS[c.op]!, parameterOf(engine, model, c)[0]);
}

/** Adds the validated filters of a list query to a select (values always bound). */
export function whereOf(engine: Engine, model: Model, query: Pick<ListQuery, 'where'>) {
  return (eb: ExpressionBuilder<any, any>) =>
    eb.or(query.where.map((group) => eb.and(group.map((c) => condition(eb, engine, model, c)))));
}
