import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { compileStatement } from '../../src/db/statement-batch.ts';
import { shapedStatement } from '../../src/db/statement-shapes.ts';

/** Kysely instances that only compile, one per engine's SQL (no connection). */
const compilers = {
  postgres: new Kysely<any>({ dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() } }),
  mysql: new Kysely<any>({ dialect: { createAdapter: () => new MysqlAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new MysqlIntrospector(db), createQueryCompiler: () => new MysqlQueryCompiler() } }),
  sqlite: new Kysely<any>({ dialect: { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler() } }),
};

/** An update of `n` rows by id, each moved by its own amount: values are the ids, then the amounts. */
const moveBy = (db: Kysely<any>, n: number) => (value: (index: number) => unknown) => db.updateTable('t')
  .set({ amount: sql`amount + CASE id ${sql.join(Array.from({ length: n }, (_, i) => sql`WHEN ${value(i)} THEN ${value(n + i)}`), sql` `)} ELSE 0 END`, flag: value(2 * n) })
  .where('id', 'in', Array.from({ length: n }, (_, i) => value(i)));

it('binds each statement\'s values to the text Kysely compiled for its shape, in Kysely\'s order, on every engine', () => {
  for (const [engine, db] of Object.entries(compilers)) {
    for (const n of [1, 3]) {
      const texts = new Set<string>();
      for (const seed of [1, 2, 3, 4]) {
        const values = [...Array.from({ length: n }, (_, i) => seed * 10 + i), ...Array.from({ length: n }, (_, i) => `${seed}.${i}5`), seed % 2 === 0];
        const ours = shapedStatement(db, `test:move:${n}`, values, moveBy(db, n));
        const kysely = compileStatement(db, moveBy(db, n)((index) => values[index]));
        assert.equal(ours.sql, kysely.sql, `${engine}: the same text`);
        assert.deepEqual(ours.parameters, kysely.parameters, `${engine}: the same values, in the same places`);
        assert.equal(ours.query.kind, 'UpdateQueryNode', 'the node names what it writes (the write tracker reads it)');
        texts.add(ours.sql);
      }
      assert.equal(texts.size, 1);
    }
  }
});

it('keeps the kept text\'s string object, so that the statement cache need not hash it again', () => {
  const db = compilers.sqlite;
  const values = [1, '2.5', true];
  const [a, b, c] = [1, 2, 3].map(() => shapedStatement(db, 'test:same-object', values, moveBy(db, 1)));
  assert.ok(b!.sql === c!.sql && a!.sql === b!.sql);
});

it('compiles with Kysely every time a builder whose text depends on a value its key does not name', () => {
  const db = compilers.postgres;
  // The number of ids is a value here, not part of the key: the two compiles of the first call differ.
  const wrong = (ids: number[]) => shapedStatement(db, 'test:wrong-key', [ids], (value) => db.selectFrom('t').selectAll().where('id', 'in', value(0) as number[]));
  const first = wrong([1, 2]);
  const second = wrong([4, 5, 6]);
  assert.equal(first.sql, compileStatement(db, db.selectFrom('t').selectAll().where('id', 'in', [1, 2])).sql);
  assert.equal(second.sql, compileStatement(db, db.selectFrom('t').selectAll().where('id', 'in', [4, 5, 6])).sql);
  assert.deepEqual(second.parameters, [4, 5, 6]);
});

it('compiles with Kysely every time a builder that binds a value of its own instead of a marker', () => {
  const db = compilers.sqlite;
  const build = (code: string) => (value: (index: number) => unknown) => db.selectFrom('t').selectAll().where('id', '=', value(0)).where('code', '=', code);
  shapedStatement(db, 'test:constant', [1], build('A'));
  const second = shapedStatement(db, 'test:constant', [2], build('B'));
  assert.deepEqual(second.parameters, [2, 'B'], 'the second code is bound, not the first one\'s');
});
