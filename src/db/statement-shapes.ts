import type { CompiledQuery, DialectAdapter } from 'kysely';
import { BoundedMap } from './bounded-map.ts';
import type { DbExecutor } from './engine.ts';
import { compileStatement, type Statement } from './statement-batch.ts';

/** Where a statement's value goes, by its index in the values of `shapedStatement`. */
class Slot {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/** A kept shape: its text, the index in `values` of each parameter, and its first compile's node (which holds only markers). */
type Shape = { sql: string; slots: number[]; query: CompiledQuery['query'] } | null;

const shapesByAdapter = new WeakMap<DialectAdapter, BoundedMap<string, Shape>>();
const slots: Slot[] = [];
const slotAt = (index: number) => (slots[index] ??= new Slot(index));

/** Enough for the shapes a busy installation writes; ad-hoc keys cannot grow it forever. */
const CAPACITY = 500;

/**
 * A statement whose text depends only on its shape: what `key` names (the statement, how many rows
 * or ids it moves), on one engine. The first statement of a shape is built and compiled by Kysely
 * with a marker where each value goes (`build` puts `value(i)` there, for `values[i]`), and its
 * text kept with the place of every value; the next ones bind `values` to that text, building
 * nothing. Building and compiling with Kysely cost more than SQLite's own work for most of a
 * document write's statements (docs/performance.md), and a kept text is the same string object
 * each time, so the prepared-statement cache finds it without hashing it again.
 *
 * The first one is also built with its values and compiled: a shape is kept only if every
 * parameter of the marked compile is a marker (a value put in directly could differ next time:
 * constants belong in the text) and both compiles give the same text and the same parameters once
 * bound (a builder whose text depends on a value its key does not name is compiled by Kysely every
 * time instead of answered wrong).
 */
export function shapedStatement(db: DbExecutor, key: string, values: readonly unknown[], build: (value: (index: number) => unknown) => Statement): CompiledQuery {
  const { adapter } = db.getExecutor();
  let shapes = shapesByAdapter.get(adapter);
  if (!shapes) shapesByAdapter.set(adapter, (shapes = new BoundedMap(CAPACITY)));
  const shape = shapes.get(key);
  if (shape) {
    const parameters = new Array<unknown>(shape.slots.length);
    for (let i = 0; i < parameters.length; i++) parameters[i] = values[shape.slots[i]!];
    return { sql: shape.sql, parameters, query: shape.query, queryId: { queryId: '' } } as unknown as CompiledQuery;
  }
  const compiled = compileStatement(db, build((index) => values[index])) as CompiledQuery;
  if (shape === null) return compiled;
  const marked = compileStatement(db, build(slotAt)) as CompiledQuery;
  const kept = marked.parameters.every((parameter) => parameter instanceof Slot) ? marked.parameters.map((parameter) => (parameter as Slot).index) : undefined;
  const same = kept !== undefined && marked.sql === compiled.sql && kept.length === compiled.parameters.length && kept.every((index, i) => Object.is(values[index], compiled.parameters[i]));
  shapes.set(key, same ? { sql: marked.sql, slots: kept, query: marked.query } : null);
  return compiled;
}

/** The shapes of `db`'s engine that are compiled by Kysely every time (their builder bound a value of its own, or its text depends on a value): what a test of the write path checks is empty. */
export function rejectedShapes(db: DbExecutor): string[] {
  const shapes = shapesByAdapter.get(db.getExecutor().adapter);
  return shapes ? [...shapes.entries()].filter(([, shape]) => shape === null).map(([key]) => key) : [];
}
