import type { CompiledQuery } from 'kysely';
import type { TestApp } from './test-app.ts';

/** Statements an app ran, in order, each with the number of the round trip that carried it. */
export interface Observed {
  statements: string[];
  trips: number[];
}

/** Runs `fn`, observing every statement with its round trip. */
export async function observe<T>(t: TestApp, fn: () => Promise<T>): Promise<{ value: T } & Observed> {
  const { counter } = t.app.ctx.database;
  const seen: Observed = { statements: [], trips: [] };
  counter.observer = (query: CompiledQuery, roundTrip: number) => {
    seen.statements.push(query.sql.trim().toLowerCase());
    seen.trips.push(roundTrip);
  };
  try {
    return { value: await fn(), ...seen };
  } finally {
    counter.observer = undefined;
  }
}
