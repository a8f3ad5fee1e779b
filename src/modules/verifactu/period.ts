import type { DbExecutor } from '../../db/database.ts';
import { parseDate } from '../../models/coerce.ts';

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

/**
 * A period's `desde` and `hasta` as a request gives them (`YYYY-MM-DD`, both required, `hasta` not
 * before `desde`): the days, with what is wrong with each put into `fields`.
 */
export function periodInput(input: Record<string, unknown>, fields: Record<string, string>): { desde: string; hasta: string } {
  const day = (name: 'desde' | 'hasta') => {
    const value = input[name];
    if (value === undefined || value === '') fields[name] = 'required';
    else if (typeof value !== 'string' || !/^\d{4}-/.test(value) || !parseDate(value)) fields[name] = 'invalid-date';
    return String(value);
  };
  const desde = day('desde');
  const hasta = day('hasta');
  if (!fields.desde && !fields.hasta && desde > hasta) fields.hasta = 'before-desde';
  return { desde, hasta };
}
