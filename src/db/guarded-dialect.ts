import type { Dialect, Driver } from 'kysely';
import { assertNoTransaction } from './transaction.ts';

/**
 * Wraps a dialect so that its driver refuses to hand out a connection to code running inside a
 * transaction (see transaction.ts): on SQLite such a request would wait for the transaction that
 * is waiting for it, and on a pool it takes a second connection per transaction until the pool
 * is exhausted. Failing fast turns a permanent hang into an error with a stack.
 */
export function guardedDialect(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => guardedDriver(dialect.createDriver()),
  };
}

function guardedDriver(driver: Driver): Driver {
  return new Proxy(driver, {
    get(target, property) {
      if (property === 'acquireConnection') {
        return (...args: Parameters<Driver['acquireConnection']>) => {
          assertNoTransaction('a database connection');
          return target.acquireConnection(...args);
        };
      }
      // Bound to the driver itself: drivers keep private fields that a proxy receiver cannot reach.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
