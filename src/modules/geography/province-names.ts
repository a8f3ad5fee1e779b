import type { DbExecutor } from '../../db/database.ts';

/** Province names by id (`provincias.idprovincia` -> `provincia`). */
export async function provinceNames(db: DbExecutor, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('provincias').select(['idprovincia', 'provincia']).where('idprovincia', 'in', ids).execute();
  return new Map(rows.map((row) => [Number(row.idprovincia), String(row.provincia)]));
}
