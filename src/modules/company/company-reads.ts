import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { rowReader } from '../../db/row-codec.ts';
import { empresaModel } from './company-models.ts';

const read = rowReader(empresaModel);

/** Every company's row (a job that works company by company). */
export async function allCompanies(db: DbExecutor): Promise<Array<Record<string, unknown>>> {
  return (await db.selectFrom('empresas').selectAll().orderBy('idempresa').execute()).map((row) => read(row));
}

/** One company's row, through the caller's transaction (what a document's issuer was when it was written); undefined when none. */
export async function companyOf(db: DbExecutor, idempresa: number): Promise<Record<string, unknown> | undefined> {
  const row = await db.selectFrom('empresas').selectAll().where('idempresa', '=', idempresa).executeTakeFirst();
  return row ? read(row) : undefined;
}

/**
 * The company's row locked for the rest of the transaction: writes that change which fiscal system
 * a company issues under take turns on it, each then reading the others' committed state (READ
 * COMMITTED on every server engine).
 */
export async function lockCompany(db: DbExecutor, dialect: SqlDialect, idempresa: number): Promise<void> {
  await dialect.locking(db.selectFrom('empresas').select('idempresa').where('idempresa', '=', idempresa)).execute();
}
