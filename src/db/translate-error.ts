import { AppError, type ErrorCode } from '../errors.ts';

/** What the statement was doing: a failed foreign key means "still referenced" on delete, "no such parent" otherwise. */
export type WriteKind = 'insert' | 'update' | 'delete' | 'read';

type Kind = 'unique' | 'foreign-key' | 'not-null' | 'too-long' | 'bad-value' | 'check' | 'retry';

/** Driver error codes of the three engines, by kind. */
const DRIVER_CODES: Record<string, Kind> = {
  // SQLite (better-sqlite3 `code`)
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  // SQLite reports an ON DELETE RESTRICT action as a trigger constraint ("FOREIGN KEY constraint failed").
  SQLITE_CONSTRAINT_TRIGGER: 'foreign-key',
  SQLITE_CONSTRAINT_NOTNULL: 'not-null',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_BUSY: 'retry',
  SQLITE_BUSY_SNAPSHOT: 'retry',
  SQLITE_LOCKED: 'retry',
  // PostgreSQL (SQLSTATE)
  '23505': 'unique',
  '23503': 'foreign-key',
  '23502': 'not-null',
  '23514': 'check',
  '22001': 'too-long',
  '22P02': 'bad-value',
  '22003': 'bad-value',
  '22007': 'bad-value',
  '22008': 'bad-value',
  '40001': 'retry',
  '40P01': 'retry',
  // MySQL / MariaDB (mysql2 `code`)
  ER_DUP_ENTRY: 'unique',
  ER_ROW_IS_REFERENCED: 'foreign-key',
  ER_ROW_IS_REFERENCED_2: 'foreign-key',
  ER_NO_REFERENCED_ROW: 'foreign-key',
  ER_NO_REFERENCED_ROW_2: 'foreign-key',
  ER_BAD_NULL_ERROR: 'not-null',
  ER_NO_DEFAULT_FOR_FIELD: 'not-null',
  ER_DATA_TOO_LONG: 'too-long',
  ER_TRUNCATED_WRONG_VALUE: 'bad-value',
  ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: 'bad-value',
  ER_WARN_DATA_OUT_OF_RANGE: 'bad-value',
  ER_CHECK_CONSTRAINT_VIOLATED: 'check',
  ER_LOCK_DEADLOCK: 'retry',
  ER_LOCK_WAIT_TIMEOUT: 'retry',
};

function kindOf(error: unknown): Kind | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? DRIVER_CODES[code] : undefined;
}

/** True for deadlocks and serialisation failures: the transaction may simply be run again. */
export function isRetryable(error: unknown): boolean {
  return kindOf(error) === 'retry';
}

/** The AppError for a driver error, or undefined when it is not one the client caused. */
export function translateDbError(error: unknown, kind: WriteKind): AppError | undefined {
  if (error instanceof AppError) return error;
  const found = kindOf(error);
  if (!found) return undefined;
  const map: Record<Kind, ErrorCode> = {
    unique: 'duplicate-record',
    'foreign-key': kind === 'delete' ? 'record-in-use' : 'invalid-reference',
    'not-null': 'validation-failed',
    'too-long': 'validation-failed',
    'bad-value': 'validation-failed',
    check: 'validation-failed',
    retry: 'database-busy',
  };
  const code = map[found];
  const details = code === 'validation-failed' ? { fields: {}, reason: found } : undefined;
  return new AppError(code, details, { cause: error });
}
