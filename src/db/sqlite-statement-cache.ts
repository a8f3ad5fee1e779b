import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { BoundedMap } from './bounded-map.ts';
import { opaquePlaceholders } from './parameter-sql.ts';

/**
 * Kysely prepares a new statement for every query; better-sqlite3 frees statements only when the
 * garbage collector gets to them, and their native memory is invisible to it, so under load the
 * process grows without bound (architecture section 7). Reusing prepared statements by SQL text
 * keeps memory flat. Safe because one query at a time runs on the connection: Kysely's driver and
 * the direct reads take turns on one lock (sqlite-queued-dialect.ts). The cache is a bounded LRU:
 * ad-hoc SQL cannot grow it forever. Statements are prepared with their placeholders opaque to the
 * planner (opaquePlaceholders), so that a cached statement is not compiled again on every run.
 */
export function cachedStatements(db: BetterSqlite3.Database, capacity = 500): SqliteDatabase & { cacheSize(): number } {
  const cache = new BoundedMap<string, BetterSqlite3.Statement>(capacity);
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (!statement) cache.set(sql, (statement = db.prepare(opaquePlaceholders(sql))));
      return statement as unknown as SqliteStatement;
    },
    cacheSize: () => cache.size,
  };
}
