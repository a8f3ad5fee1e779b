import assert from 'node:assert/strict';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteDialect, SqliteIntrospector, SqliteQueryCompiler, sql, type CompiledQuery } from 'kysely';
import { insertRows } from '../../src/db/insert-shapes.ts';
import { compileStatement } from '../../src/db/statement-batch.ts';

/** Kysely instances that only compile, one per engine's SQL (no connection). */
const compilers = {
  postgres: new Kysely<any>({ dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() } }),
  mysql: new Kysely<any>({ dialect: { createAdapter: () => new MysqlAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new MysqlIntrospector(db), createQueryCompiler: () => new MysqlQueryCompiler() } }),
  sqlite: new Kysely<any>({ dialect: { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler() } }),
};

const rowsOf = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ({
  id: seed * 10 + i, name: `name ${seed}-${i}`, amount: seed % 2 ? null : seed + i / 4, active: i % 2 === 0,
  parent: sql`(SELECT p.id FROM parents p WHERE p.code = ${`P${seed}`} LIMIT 1)`,
}));

it('binds each call\'s values to the text Kysely compiled for the shape, in the order Kysely binds them, on every engine', () => {
  for (const [engine, db] of Object.entries(compilers)) {
    for (const returning of [undefined, 'id']) {
      if (engine === 'mysql' && returning) continue;
      let first: CompiledQuery | undefined;
      for (const seed of [1, 2, 3]) {
        const statement = insertRows(db, 'things', rowsOf(3, seed), returning);
        const ours = compileStatement(db, statement);
        const built = db.insertInto('things').values(rowsOf(3, seed));
        const kysely = (returning ? built.returning(returning) : built).compile();
        assert.equal(ours.sql, kysely.sql, `${engine}: the same text`);
        assert.deepEqual(ours.parameters, kysely.parameters, `${engine}: the same values, in the same places`);
        first ??= ours;
      }
      // From the second call on, the shape's text is reused (not compiled again), and its node names
      // the table written (what the write tracker reads) without keeping the first call's values.
      const reused = compileStatement(db, insertRows(db, 'things', rowsOf(3, 9), returning));
      assert.equal(reused.sql, first!.sql);
      assert.equal(reused.query.kind, 'InsertQueryNode');
      assert.equal((reused.query as any).into.table.identifier.name, 'things');
      assert.equal((reused.query as any).values, undefined, 'the cached node holds no values');
    }
  }
});

it('tells apart shapes that differ in rows, columns, their order, what they return or an expression\'s text', () => {
  const db = compilers.postgres;
  const texts = [
    insertRows(db, 't', [{ a: 1, b: 2 }]),
    insertRows(db, 't', [{ a: 1, b: 2 }, { a: 3, b: 4 }]),
    insertRows(db, 't', [{ b: 2, a: 1 }]),
    insertRows(db, 't', [{ a: 1, b: 2 }], 'a'),
    insertRows(db, 't', [{ a: 1, b: sql`(SELECT 1)` }]),
    insertRows(db, 't', [{ a: 1, b: sql`(SELECT 2)` }]),
    insertRows(db, 'u', [{ a: 1, b: 2 }]),
  ].map((statement) => compileStatement(db, statement).sql);
  assert.equal(new Set(texts).size, texts.length, texts.join('\n'));
});

it('leaves to Kysely rows whose columns differ or that hold undefined or other objects, and writes them as Kysely would', () => {
  const db = compilers.sqlite;
  const cases: Array<Array<Record<string, unknown>>> = [
    [{ a: 1, b: 2 }, { a: 3 }],
    [{ a: 1, b: 2 }, { b: 4, a: 3 }],
    [{ a: 1, b: undefined }],
    [{ a: 1, b: new Date(0) }],
  ];
  for (const rows of cases) {
    for (let call = 0; call < 2; call++) {
      assert.deepEqual(compileStatement(db, insertRows(db, 'v', rows)), db.insertInto('v').values(rows).compile(), JSON.stringify(rows));
    }
  }
});

it('compiles bulk inserts with Kysely every time instead of keeping them', () => {
  const db = compilers.postgres;
  const rows = Array.from({ length: 300 }, (_, i) => ({ a: i, b: `b${i}`, c: null, d: i * 2 }));
  for (let call = 0; call < 2; call++) {
    const statement = compileStatement(db, insertRows(db, 'bulk', rows));
    assert.notEqual((statement.query as any).values, undefined, 'Kysely\'s own node, with its values');
    assert.deepEqual(statement.parameters, rows.flatMap((row) => Object.values(row)));
  }
});

it('writes the rows it is given on a real database, call after call', async () => {
  const raw = new Database(':memory:');
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
  try {
    await sql`CREATE TABLE parents (id INTEGER PRIMARY KEY, code TEXT)`.execute(db);
    await sql`CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT, amount REAL, active INTEGER, parent INTEGER)`.execute(db);
    for (const seed of [1, 2, 3]) await sql`INSERT INTO parents (id, code) VALUES (${100 + seed}, ${`P${seed}`})`.execute(db);
    const written = [];
    for (const seed of [1, 2, 3]) {
      const rows = rowsOf(2, seed).map((row) => ({ ...row, active: row.active ? 1 : 0 }));
      const result = await db.executeQuery(compileStatement(db, insertRows(db, 'things', rows, 'id')));
      assert.deepEqual(result.rows, rows.map((row) => ({ id: row.id })));
      written.push(...rows.map(({ parent: _, ...row }) => ({ ...row, parent: 100 + seed })));
    }
    assert.deepEqual(await db.selectFrom('things').selectAll().orderBy('id').execute(), written);
  } finally {
    await db.destroy();
  }
});
