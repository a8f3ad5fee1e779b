import type { DatabaseConnection, Dialect, Driver } from 'kysely';
import { assertNoTransaction } from './transaction.ts';

/** How many statements the database has run: cheap enough to keep on, read by tests and benches. */
export interface StatementCounter {
  statements: number;
}

/**
 * Wraps a dialect so that its driver refuses to hand out a connection to code running inside a
 * transaction (see transaction.ts): on SQLite such a request would wait for the transaction that
 * is waiting for it, and on a pool it takes a second connection per transaction until the pool
 * is exhausted. Failing fast turns a permanent hang into an error with a stack. Every statement
 * run on a connection it hands out is counted in `counter`.
 */
export function guardedDialect(dialect: Dialect, counter: StatementCounter): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => guardedDriver(dialect.createDriver(), counter),
  };
}

function guardedDriver(driver: Driver, counter: StatementCounter): Driver {
  const counted = new WeakSet<DatabaseConnection>();
  const count = (connection: DatabaseConnection) => {
    if (counted.has(connection)) return connection;
    counted.add(connection);
    const execute = connection.executeQuery.bind(connection);
    connection.executeQuery = (query, options) => {
      counter.statements++;
      return execute(query, options);
    };
    return connection;
  };
  return new Proxy(driver, {
    get(target, property) {
      if (property === 'acquireConnection') {
        return async (...args: Parameters<Driver['acquireConnection']>) => {
          assertNoTransaction('a database connection');
          return count(await target.acquireConnection(...args));
        };
      }
      // Bound to the driver itself: drivers keep private fields that a proxy receiver cannot reach.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
