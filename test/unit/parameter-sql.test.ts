import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { opaquePlaceholders, wrapParameters } from '../../src/db/parameter-sql.ts';

/** Parameters wrapped in SQL in a compiled statement (src/db/parameter-sql.ts; late-number.ts uses it). */
const wrapMarked = (placeholder: string, value: unknown) => (value === 'x' ? `f(${placeholder})` : undefined);

it('wraps the placeholders of the parameters asked for, by position, on each engine', () => {
  const cases: Array<[engine: 'postgres' | 'mysql' | 'sqlite', sql: string, parameters: unknown[], expected: string]> = [
    ['mysql', 'insert into t (a, b, c) values (?, ?, ?)', ['y', 'x', 1], 'insert into t (a, b, c) values (?, f(?), ?)'],
    ['sqlite', 'select ? as a, ? as b', ['x', 'x'], 'select f(?) as a, f(?) as b'],
    // A question mark inside a literal or a quoted identifier is not a placeholder.
    ['mysql', "select '?' as `a?`, ? as \"b?\", 'it''s ?', ?", ['z', 'x'], "select '?' as `a?`, ? as \"b?\", 'it''s ?', f(?)"],
    // $1 is not the start of $10.
    ['postgres', `select ${Array.from({ length: 10 }, (_, i) => `$${i + 1}`).join(', ')}`, [...Array(9).fill('y'), 'x'], 'select $1, $2, $3, $4, $5, $6, $7, $8, $9, f($10)'],
    ['postgres', "select '$1' as a, $1", ['x'], "select '$1' as a, f($1)"],
  ];
  for (const [engine, sql, parameters, expected] of cases) {
    const query = CompiledQuery.raw(sql, parameters);
    const wrapped = wrapParameters(query, engine, wrapMarked);
    assert.equal(wrapped.sql, expected, `${engine}: ${sql}`);
    assert.deepEqual(wrapped.parameters, parameters, 'the parameters stay bound as they were');
    assert.equal(wrapped.query, query.query, 'the statement\'s node stays (what it writes is told by it)');
  }
});

it('answers the statement itself when no parameter is wrapped', () => {
  const query = CompiledQuery.raw('select ?', ['y']);
  assert.equal(wrapParameters(query, 'mysql', wrapMarked), query);
});

it('skips placeholders inside comments when it counts them', () => {
  const query = CompiledQuery.raw("select ? /* it's ? */, -- don't ?\n ?", ['y', 'x']);
  assert.equal(wrapParameters(query, 'sqlite', wrapMarked).sql, "select ? /* it's ? */, -- don't ?\n f(?)");
});

it('writes SQLite placeholders as +? outside literals, identifiers and comments', () => {
  const cases: Array<[sql: string, expected: string]> = [
    ['select * from t where a = ? and b in (?, ?) limit ?', 'select * from t where a = +? and b in (+?, +?) limit +?'],
    ['insert into t (a, b) values (?, ?), (?, ?)', 'insert into t (a, b) values (+?, +?), (+?, +?)'],
    ["select '?' as \"a?\", `b?`, 'it''s ?', x-? /* ? */ -- ?\n, ?", "select '?' as \"a?\", `b?`, 'it''s ?', x-+? /* ? */ -- ?\n, +?"],
    ['select 1', 'select 1'],
  ];
  for (const [sql, expected] of cases) assert.equal(opaquePlaceholders(sql), expected, sql);
});

it('wraps by each call\'s own values where a text comes back (its placeholders found once)', () => {
  const text = "insert into t (a, b, c) values ($1, '$2', $2, $3)";
  const first = wrapParameters(CompiledQuery.raw(text, ['x', 'y', 'z']), 'postgres', wrapMarked);
  const second = wrapParameters(CompiledQuery.raw(text, ['y', 'x', 'x']), 'postgres', wrapMarked);
  assert.equal(first.sql, "insert into t (a, b, c) values (f($1), '$2', $2, $3)");
  assert.equal(second.sql, "insert into t (a, b, c) values ($1, '$2', f($2), f($3))");
});
