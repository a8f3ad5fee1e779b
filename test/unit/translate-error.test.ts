import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { isRetryable, translateDbError, type WriteKind } from '../../src/db/translate-error.ts';

it('maps the driver errors of all three engines to the error vocabulary (table)', () => {
  const cases: Array<[string, WriteKind, string | undefined]> = [
    ['SQLITE_CONSTRAINT_UNIQUE', 'insert', 'duplicate-record'],
    ['SQLITE_CONSTRAINT_PRIMARYKEY', 'insert', 'duplicate-record'],
    ['SQLITE_CONSTRAINT_FOREIGNKEY', 'insert', 'invalid-reference'],
    ['SQLITE_CONSTRAINT_FOREIGNKEY', 'delete', 'record-in-use'],
    ['SQLITE_CONSTRAINT_TRIGGER', 'delete', 'record-in-use'],
    ['SQLITE_CONSTRAINT_NOTNULL', 'insert', 'validation-failed'],
    ['SQLITE_BUSY', 'update', 'database-busy'],
    ['23505', 'insert', 'duplicate-record'],
    ['23503', 'update', 'invalid-reference'],
    ['23503', 'delete', 'record-in-use'],
    ['23502', 'insert', 'validation-failed'],
    ['22001', 'insert', 'validation-failed'],
    ['40001', 'update', 'database-busy'],
    ['40P01', 'update', 'database-busy'],
    ['ER_DUP_ENTRY', 'insert', 'duplicate-record'],
    ['ER_ROW_IS_REFERENCED_2', 'delete', 'record-in-use'],
    ['ER_NO_REFERENCED_ROW_2', 'insert', 'invalid-reference'],
    ['ER_BAD_NULL_ERROR', 'insert', 'validation-failed'],
    ['ER_DATA_TOO_LONG', 'update', 'validation-failed'],
    ['ER_LOCK_DEADLOCK', 'update', 'database-busy'],
    ['22021', 'insert', 'validation-failed'],
    ['57P01', 'read', 'database-unavailable'],
    ['PROTOCOL_CONNECTION_LOST', 'insert', 'database-unavailable'],
    ['ECONNREFUSED', 'read', 'database-unavailable'],
    ['SOMETHING_ELSE', 'insert', undefined],
    ['constructor', 'insert', undefined],
    ['__proto__', 'insert', undefined],
  ];
  for (const [code, kind, expected] of cases) {
    const translated = translateDbError(Object.assign(new Error('driver'), { code }), kind);
    assert.equal(translated?.code, expected, `${code} on ${kind}`);
  }
  // pg reports a dropped socket by message only.
  assert.equal(translateDbError(new Error('Connection terminated unexpectedly'), 'read')?.code, 'database-unavailable');
  assert.equal(translateDbError(new Error('Connection terminated unexpectedly'), 'read')?.details?.retryAfter, 1);
  assert.equal(isRetryable({ code: '40P01' }), true);
  assert.equal(isRetryable({ code: '23505' }), false);
  const own = new AppError('record-not-found');
  assert.equal(translateDbError(own, 'read'), own);
});
