import type { DbExecutor } from '../../db/database.ts';
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
