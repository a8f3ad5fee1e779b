import type { CompiledQuery, QueryResult } from 'kysely';
import type { Database, DbExecutor } from './database.ts';
import { StatementBatch } from './statement-batch.ts';

/**
 * Independent reads that need no transaction, in one round trip: the statements they send as they
 * start go as one batch (statement-batch.ts: pipelined on one connection on PostgreSQL, one
 * multi-statement query on MariaDB). On loopback a round trip costs the service a system call that
 * also wakes the server, and the server a command to read: a few per cent of a new invoice's CPU
 * on each side (docs/performance.md). SQLite has no round trip: the reads run as they would alone.
 *
 * Contract: a read's first statement is sent with `db.executeQuery` before the read awaits
 * anything (a compiled or shaped statement); the statements it sends later run on their own.
 */
export function readTogether<A, B>(database: Database, first: (db: DbExecutor) => Promise<A>, second: (db: DbExecutor) => Promise<B>): Promise<[A, B]> {
  const db = database.kysely;
  if (database.engine === 'sqlite') return Promise.all([first(db), second(db)]);
  const batch = new StatementBatch(db, database.engine);
  let opening = true;
  const reader = executingWith(db, (query) => (opening ? batch.add(query) : db.executeQuery(query)));
  const reads = Promise.all([first(reader), second(reader)]);
  opening = false;
  // Each read's own statement answers its failure.
  batch.flush().catch(() => {});
  return reads;
}

/** `db` whose `executeQuery` is `execute` (Kysely's methods keep private fields: the others are called on `db` itself). */
function executingWith(db: DbExecutor, execute: (query: CompiledQuery) => Promise<QueryResult<unknown>>): DbExecutor {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'executeQuery') return execute;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
