import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import { dec, roundNumber } from '../../models/round.ts';

/** One sub-account's line of the trial balance. */
export interface TrialBalanceLine {
  codsubcuenta: string;
  descripcion: string;
  codcuenta: string;
  debe: number;
  haber: number;
  saldo: number;
}

export interface TrialBalance {
  codejercicio: string;
  desde: string | null;
  hasta: string | null;
  subcuentas: TrialBalanceLine[];
  totales: { debe: number; haber: number; saldo: number };
}

/**
 * The trial balance (balance de sumas y saldos) of a fiscal year, optionally between two dates of
 * its entries: per sub-account with movements, the sums of its debits and credits and their
 * difference, from the entry lines themselves; totals are the sums of the rounded lines, so they
 * agree with what is shown (and debits equal credits when every entry balances).
 */
export async function trialBalance(db: DbExecutor, codejercicio: string, decimals: number, range: { desde?: string; hasta?: string } = {}): Promise<TrialBalance> {
  let query = db.selectFrom('partidas as p')
    .innerJoin('asientos as a', 'a.idasiento', 'p.idasiento')
    .innerJoin('subcuentas as s', 's.idsubcuenta', 'p.idsubcuenta')
    .select(['s.codsubcuenta', 's.descripcion', 's.codcuenta', sql<number>`SUM(p.debe)`.as('debe'), sql<number>`SUM(p.haber)`.as('haber')])
    .where('a.codejercicio', '=', codejercicio);
  if (range.desde) query = query.where('a.fecha', '>=', range.desde);
  if (range.hasta) query = query.where('a.fecha', '<=', range.hasta);
  const rows = await query.groupBy(['s.codsubcuenta', 's.descripcion', 's.codcuenta']).orderBy('s.codsubcuenta').execute();
  let debe = dec(0);
  let haber = dec(0);
  const subcuentas = rows.map((row) => {
    const line = { debe: roundNumber(dec(Number(row.debe)), decimals), haber: roundNumber(dec(Number(row.haber)), decimals) };
    debe = debe.plus(line.debe);
    haber = haber.plus(line.haber);
    return {
      codsubcuenta: String(row.codsubcuenta), descripcion: String(row.descripcion ?? ''), codcuenta: String(row.codcuenta),
      ...line, saldo: roundNumber(dec(line.debe).minus(line.haber), decimals),
    };
  });
  return {
    codejercicio, desde: range.desde ?? null, hasta: range.hasta ?? null, subcuentas,
    totales: { debe: roundNumber(debe, decimals), haber: roundNumber(haber, decimals), saldo: roundNumber(debe.minus(haber), decimals) },
  };
}
