import { AppError, type ErrorCode } from '../errors.ts';
import { isStalePreparedStatement } from './pg-named-statements.ts';

/** How the triggers of append-only tables (append-only.ts) word a refusal: `append-only: <table>`. */
export const APPEND_ONLY_MESSAGE = 'append-only';

/** What the statement was doing: a failed foreign key means "still referenced" on delete, "no such parent" otherwise. */
export type WriteKind = 'insert' | 'update' | 'delete' | 'read';

type Kind = 'unique' | 'foreign-key' | 'not-null' | 'too-long' | 'bad-value' | 'check' | 'retry' | 'unavailable' | 'immutable';

/** Driver error codes of the three engines, by kind (a null-prototype table: codes come from outside). */
const DRIVER_CODES: Readonly<Record<string, Kind>> = Object.assign(Object.create(null) as Record<string, Kind>, {
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
  '22021': 'bad-value', // a byte sequence the encoding refuses (NUL)
  '22P05': 'bad-value',
  '54000': 'bad-value', // a value beyond an engine limit (index row size)
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
  // The connection went away (server restart, killed session, network): the statement did not
  // run, or its transaction rolled back; the pools drop the dead connection, the next request works.
  '57P01': 'unavailable', // admin_shutdown (pg_terminate_backend)
  '57P02': 'unavailable',
  '57P03': 'unavailable',
  '08000': 'unavailable',
  '08003': 'unavailable',
  '08006': 'unavailable',
  '53300': 'unavailable', // too many connections
  PROTOCOL_CONNECTION_LOST: 'unavailable',
  ER_CON_COUNT_ERROR: 'unavailable',
  ER_SERVER_SHUTDOWN: 'unavailable',
  ER_CONNECTION_KILLED: 'unavailable',
  ECONNREFUSED: 'unavailable',
  ECONNRESET: 'unavailable',
  EPIPE: 'unavailable',
  ETIMEDOUT: 'unavailable',
});

/** pg reports a dropped socket and a pool wait that timed out by message only. */
const UNAVAILABLE_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Can't add new command when connection is in closed state)/;

function kindOf(error: unknown): Kind | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // An append-only table's trigger refused the write (each engine reports it under a generic code).
  if (typeof message === 'string' && message.includes(`${APPEND_ONLY_MESSAGE}: `)) return 'immutable';
  // A named statement prepared before the schema changed: its transaction runs again, under new names.
  if (isStalePreparedStatement(error)) return 'retry';
  if (typeof code === 'string' && DRIVER_CODES[code]) return DRIVER_CODES[code];
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message) ? 'unavailable' : undefined;
}

/**
 * True for deadlocks, serialisation failures and stale prepared statements: the transaction may
 * simply be run again. Also when a store already translated one (`database-busy` with its cause).
 */
export function isRetryable(error: unknown): boolean {
  return kindOf(error instanceof AppError && error.code === 'database-busy' ? error.cause : error) === 'retry';
}

/** The pause before running a retryable failure's transaction again: short, growing, jittered (attempt 1, 2 ...). */
export function retryPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(200, 5 * 2 ** attempt) * (0.5 + Math.random())));
}

/** True when the server or the connection to it is gone (the statement did not complete). */
export function isUnavailable(error: unknown): boolean {
  return kindOf(error) === 'unavailable';
}

/** True when a write collided with an existing unique key. */
export function isUniqueViolation(error: unknown): boolean {
  return kindOf(error) === 'unique';
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
    unavailable: 'database-unavailable',
    immutable: 'record-immutable',
  };
  const code = map[found];
  const details = code === 'validation-failed' ? { fields: {}, reason: found } : code === 'database-unavailable' || code === 'database-busy' ? { retryAfter: 1 } : undefined;
  return new AppError(code, details, { cause: error });
}
