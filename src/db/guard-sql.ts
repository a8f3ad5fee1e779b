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
 * The failure is a scalar subquery answering two rows (PostgreSQL 21000, MariaDB 1242), in the
 * ELSE of a CASE: both engines evaluate it only when reached (PostgreSQL's init-plan on first use,
 * MariaDB's subquery item when the CASE asks for it), so a condition that holds costs nothing
 * more; a NULL condition fails too. test/commit-guard.test.ts holds both ways on both engines.
 */
export function failUnless(condition: RawBuilder<unknown>): RawBuilder<null> {
  return sql<null>`CASE WHEN ${condition} THEN NULL ELSE (SELECT 1 UNION ALL SELECT 2) END`;
}

/**
 * `value`, as a literal of its column, for an UPDATE's first assignment: the statement fails unless
 * `still` holds of the row as it is when updated (read before any assignment is made), so that a
 * row changed since it was read fails the batch instead of being updated or skipped.
 */
export function guardedValue(value: boolean | number | string, still: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`CASE WHEN ${failUnless(still)} IS NULL THEN ${sql.lit(value)} END`;
}
