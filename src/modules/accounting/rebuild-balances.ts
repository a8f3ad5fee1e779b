import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { dec, roundNumber } from '../../models/round.ts';

/** A sub-account whose stored balance was not what its entry lines sum to. */
export interface StaleBalance {
  codejercicio: string;
  codsubcuenta: string;
  stored: { debe: number; haber: number };
  lines: { debe: number; haber: number };
}

/** Deeper than any chart: a tree made circular by hand stops here. */
const MAX_DEPTH = 16;

/**
 * Every balance set again from the books, in the caller's transaction (books written around the
 * entry writers: an import): each sub-account's as its entry lines sum, each account's as the
 * sub-accounts below it (the tree of `parent_idcuenta`), rounded to 6 places as balances.ts keeps
 * them. Answers the sub-accounts whose stored balance differed to the cent.
 */
export async function rebuildBalances(trx: DbExecutor): Promise<StaleBalance[]> {
  const sums = await trx.selectFrom('subcuentas as s').leftJoin('partidas as p', 'p.idsubcuenta', 's.idsubcuenta')
    .select(['s.idsubcuenta', 's.idcuenta', 's.codsubcuenta', 's.codejercicio', 's.debe', 's.haber', sql<number>`COALESCE(SUM(p.debe), 0)`.as('sumdebe'), sql<number>`COALESCE(SUM(p.haber), 0)`.as('sumhaber')])
    .groupBy(['s.idsubcuenta', 's.idcuenta', 's.codsubcuenta', 's.codejercicio', 's.debe', 's.haber']).orderBy('s.idsubcuenta').execute();
  const parents = new Map((await trx.selectFrom('cuentas').select(['idcuenta', 'parent_idcuenta']).execute()).map((row) => [Number(row.idcuenta), row.parent_idcuenta === null ? null : Number(row.parent_idcuenta)]));
  const six = (value: unknown) => roundNumber(dec(Number(value ?? 0)), 6);
  const cents = (value: unknown) => roundNumber(dec(Number(value ?? 0)), 2);
  const stale: StaleBalance[] = [];
  const accounts = new Map<number, { debe: ReturnType<typeof dec>; haber: ReturnType<typeof dec> }>();
  for (const row of sums) {
    const [debe, haber] = [six(row.sumdebe), six(row.sumhaber)];
    if (cents(row.debe) !== cents(debe) || cents(row.haber) !== cents(haber)) {
      stale.push({ codejercicio: String(row.codejercicio), codsubcuenta: String(row.codsubcuenta), stored: { debe: Number(row.debe ?? 0), haber: Number(row.haber ?? 0) }, lines: { debe, haber } });
    }
    await trx.updateTable('subcuentas').set({ debe, haber, saldo: roundNumber(dec(debe).minus(haber), 6) }).where('idsubcuenta', '=', Number(row.idsubcuenta)).execute();
    let depth = 0;
    for (let id: number | null = row.idcuenta === null ? null : Number(row.idcuenta); id !== null && depth < MAX_DEPTH; id = parents.get(id) ?? null, depth++) {
      const sum = accounts.get(id) ?? { debe: dec(0), haber: dec(0) };
      accounts.set(id, { debe: sum.debe.plus(debe), haber: sum.haber.plus(haber) });
    }
  }
  await trx.updateTable('cuentas').set({ debe: 0, haber: 0, saldo: 0 }).execute();
  for (const [id, sum] of accounts) {
    const [debe, haber] = [roundNumber(sum.debe, 6), roundNumber(sum.haber, 6)];
    await trx.updateTable('cuentas').set({ debe, haber, saldo: roundNumber(dec(debe).minus(haber), 6) }).where('idcuenta', '=', id).execute();
  }
  return stale;
}

/** Every fiscal year's entry counter (the lock its entries are numbered under), made where missing. */
export async function openEntryCounters(trx: DbExecutor, dialect: SqlDialect): Promise<void> {
  const years = await trx.selectFrom('ejercicios').select('codejercicio').execute();
  if (years.length) await dialect.insertIgnore(trx.insertInto('asientos_contadores').values(years.map((row) => ({ codejercicio: String(row.codejercicio) }))), ['codejercicio']).execute();
}

/** Each sub-account's balance as stored, for a comparison with what the books elsewhere sum to. */
export async function subaccountBalances(trx: DbExecutor): Promise<Array<{ codejercicio: string; codsubcuenta: string; debe: number; haber: number }>> {
  return (await trx.selectFrom('subcuentas').select(['codejercicio', 'codsubcuenta', 'debe', 'haber']).execute())
    .map((row) => ({ codejercicio: String(row.codejercicio), codsubcuenta: String(row.codsubcuenta), debe: Number(row.debe ?? 0), haber: Number(row.haber ?? 0) }));
}
