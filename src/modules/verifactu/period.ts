import type { DbExecutor } from '../../db/database.ts';

/** The two fiscal logs a period is read from: records and events, each dated by its `fechahorahuso`. */
type Log = 'registros_verifactu' | 'verifactu_eventos';

/**
 * The rows of a company's records or events generated between two days, inclusive, by the day their
 * `fechahorahuso` (`YYYY-MM-DDThh:mm:ss±hh:mm`, the issuing territory's) begins with. The stamps sort
 * as text: every one of day `hasta` is before `${hasta}U`.
 */
export function generatedIn(db: DbExecutor, table: Log, idempresa: number, desde: string, hasta: string) {
  return db.selectFrom(table).where('idempresa', '=', idempresa).where('fechahorahuso', '>=', desde).where('fechahorahuso', '<', `${hasta}U`);
}

/** How many rows the period holds now, and the last of them: an export stops there, so that its count holds. */
export async function periodOf(db: DbExecutor, table: Log, idempresa: number, desde: string, hasta: string): Promise<{ count: number; last: number }> {
  const row = await generatedIn(db, table, idempresa, desde, hasta).select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max<number>('id').as('last')]).executeTakeFirst();
  return { count: Number(row?.n ?? 0), last: Number(row?.last ?? 0) };
}
