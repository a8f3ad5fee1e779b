import assert from 'node:assert/strict';
import { it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
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
