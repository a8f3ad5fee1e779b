import { sql, type RawBuilder } from 'kysely';

/** A batch that carried its COMMIT failed (a guard did not hold, or anything else): nothing of it was committed, and the write runs again in rounds, whose checks say why. */
export class GuardFailed extends Error {
  override name = 'GuardFailed';
}

/**
 * SQL that fails its statement unless `condition` holds, and is NULL when it does: the guard of a
 * transaction whose COMMIT travels in the same round trip as its checks (docs/performance.md,
 * "Committing with the batch"). A failed statement ends the batch before its COMMIT on every
 * server engine (PostgreSQL aborts the transaction and answers the COMMIT with ROLLBACK; MariaDB
 * stops a multi-statement query at its first error), so nothing the guard refuses is committed.
 *
 * The failure is a scalar subquery answering two rows (PostgreSQL 21000, MariaDB 1242), which both
 * engines raise only when it is evaluated with the condition false; a NULL condition fails too.
 */
export function failUnless(condition: RawBuilder<unknown>): RawBuilder<null> {
  return sql<null>`(SELECT g.n FROM (SELECT 1 AS n UNION ALL SELECT 2) g WHERE CASE WHEN ${condition} THEN 0 ELSE 1 END = 1)`;
}

/**
 * `value`, as a literal of its column, for an UPDATE's first assignment: the statement fails unless
 * `still` holds of the row as it is when updated (read before any assignment is made), so that a
 * row changed since it was read fails the batch instead of being updated or skipped.
 */
export function guardedValue(value: boolean | number | string, still: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`CASE WHEN ${failUnless(still)} IS NULL THEN ${sql.lit(value)} END`;
}
