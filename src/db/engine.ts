import type { Kysely } from 'kysely';

/** The database engines the service runs on. */
export type Engine = 'sqlite' | 'postgres' | 'mysql';

// Tables are declared at run time by the model registry, so the query builder is untyped.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DbExecutor = Kysely<any>;
