import assert from 'node:assert/strict';
import { it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { cachedStatements } from '../src/db/sqlite-statement-cache.ts';

it('reuses prepared statements by SQL text and keeps the cache bounded', async () => {
  const raw = new SqliteDatabase(':memory:');
  const cached = cachedStatements(raw, 3);
  const first = cached.prepare('SELECT 1');
  assert.equal(cached.prepare('SELECT 1'), first, 'same SQL, same statement');
  for (const n of [2, 3, 4, 5]) cached.prepare(`SELECT ${n}`);
  assert.equal(cached.cacheSize(), 3);
  assert.notEqual(cached.prepare('SELECT 1'), first, 'evicted least recently used');
  raw.close();
});

it('keeps memory flat over 100k Kysely queries on SQLite', async () => {
  const raw = new SqliteDatabase(':memory:');
  const cache = cachedStatements(raw);
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: cache }) });
  await db.schema.createTable('t').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('v', 'text').execute();
  await db.insertInto('t').values(Array.from({ length: 100 }, (_, i) => ({ id: i, v: `row ${i}` }))).execute();
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) await db.selectFrom('t').selectAll().where('id', '=', i % 100).executeTakeFirst();
  };
  // A full collection before each reading, so that only memory the GC cannot reclaim is counted.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  await run(10_000); // warm-up: JIT, pools, the statement itself
  gc();
  const before = process.memoryUsage().rss;
  await run(100_000);
  gc();
  const growth = (process.memoryUsage().rss - before) / 1024 / 1024;
  assert.equal(cache.cacheSize(), 3, 'create, insert and the one select: no statement per query');
  // Without the cache, each query leaves a native statement behind until a GC finalises it
  // (hundreds of MB over 100k queries); with it, growth stays within noise.
  assert.ok(growth < 40, `RSS grew ${growth.toFixed(1)} MB over 100k queries`);
  await db.destroy();
});

it('prepares statements with placeholders the planner does not look through, with the same answers', async () => {
  // better-sqlite3 clears a statement's bindings after each run, and SQLite then compiles again any
  // statement whose plan looked at a parameter (LIMIT ?, LIKE ?, a `col = ?` filter beside a join,
  // a value probed against STAT4 samples): written `+?`, none is looked at, and each runs as before.
  const raw = new SqliteDatabase(':memory:');
  const cached = cachedStatements(raw);
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: cached }) });
  await db.schema.createTable('c').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').addColumn('flag', 'integer').execute();
  await db.schema.createTable('l').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('cid', 'integer').addColumn('amount', 'real').execute();
  await db.schema.createIndex('ix_l_cid').on('l').column('cid').execute();
  await db.insertInto('c').values(Array.from({ length: 30 }, (_, i) => ({ id: i + 1, name: `name ${i + 1}`, flag: i % 2 }))).execute();
  await db.insertInto('l').values(Array.from({ length: 90 }, (_, i) => ({ cid: (i % 30) + 1, amount: i / 4 }))).execute();
  await sql`ANALYZE`.execute(db);
  const reference = new SqliteDatabase(raw.serialize());
  const queries = [
    db.selectFrom('c').selectAll().where('name', 'like', 'name 1%').orderBy('name').limit(5).offset(2),
    db.selectFrom('c').innerJoin('l', 'l.cid', 'c.id').select(['c.name', 'l.amount']).where('c.flag', '=', 1).where('c.id', 'in', [3, 5, 8]).orderBy('l.id'),
    db.selectFrom('l').select((eb) => [eb.fn.sum<number>('amount').as('total'), eb.val(7).as('seven')]).where('cid', '=', 4),
    db.updateTable('l').set({ amount: sql`amount + ${0.25}` }).where('cid', '=', 2).returning(['id', 'amount']),
    db.insertInto('l').values({ cid: 9, amount: 1.5 }).returning('id'),
  ];
  for (const query of queries) {
    const compiled = query.compile();
    const expected = reference.prepare(compiled.sql).all(compiled.parameters as unknown[]);
    assert.deepEqual((await query.execute()).map((row) => ({ ...row })), expected, compiled.sql);
    const source = (cached.prepare(compiled.sql) as unknown as { source: string }).source;
    assert.equal(source.match(/\+\?/g)?.length, compiled.parameters.length, source);
  }
  reference.close();
  await db.destroy();
});
