import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import type { DocumentType } from './document-types.ts';

/**
 * Takes the document's row lock for the rest of the transaction (PostgreSQL, MariaDB; SQLite has
 * one writer). Every use case that changes an existing document takes it first, so that two
 * concurrent payments, edits or refunds of one document run one after the other and each sees
 * the other's result. Returns false when the document does not exist.
 */
export async function lockDocument(db: DbExecutor, dialect: SqlDialect, type: DocumentType, id: unknown): Promise<boolean> {
  const query = db.selectFrom(type.header.table).select(type.key).where(type.key, '=', id);
  return (await dialect.locking(query).executeTakeFirst()) !== undefined;
}
