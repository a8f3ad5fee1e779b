import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';

/** A sub-account of the year, as postings need it. */
export interface Subaccount {
  idsubcuenta: number;
  codsubcuenta: string;
  idcuenta: number;
  codcuenta: string;
}

/** What one posting reads of a year's chart: the sub-accounts it names, and the first of each role. */
export interface ChartView {
  codejercicio: string;
  longsubcuenta: number;
  byCode(code: string | null | undefined): Subaccount | undefined;
  /** The lowest sub-account of the lowest-coded account tagged `role` (with sub-accounts). */
  first(role: string): Subaccount | undefined;
}

/**
 * Whether a fiscal year has a chart (at least one sub-account), with its sub-account length, in
 * one read: without a chart nothing is posted, as in the reference, and nothing else is read.
 */
export async function chartOfYear(db: DbExecutor, codejercicio: string): Promise<{ longsubcuenta: number } | undefined> {
  const row = await db.selectFrom('ejercicios').select(['longsubcuenta', sql<unknown>`EXISTS (SELECT 1 FROM subcuentas s WHERE s.codejercicio = ${codejercicio})`.as('chart')])
    .where('codejercicio', '=', codejercicio).executeTakeFirst();
  const chart = row?.chart;
  return row && (chart === true || Number(chart) === 1) ? { longsubcuenta: Number(row.longsubcuenta ?? 10) } : undefined;
}

/**
 * One read of a year's chart (one that has a chart: `chartOfYear`) for a posting: the sub-accounts
 * of the codes it names, and the first sub-account of each account tagged with the roles it may
 * fall back on. Every part is an index lookup (`subcuentas (idcuenta, codsubcuenta)`): a role's
 * account may hold a sub-account per customer, and a posting's cost must not grow with them.
 */
export async function chartView(db: DbExecutor, codejercicio: string, longsubcuenta: number, roles: readonly [string, ...string[]], codes: ReadonlyArray<string | null | undefined>): Promise<ChartView> {
  const named = [...new Set(codes.filter((code): code is string => typeof code === 'string' && code !== ''))];
  const columns = ['s.idsubcuenta', 's.codsubcuenta', 's.idcuenta', 'c.codcuenta', 'c.codcuentaesp'] as const;
  const tagged = db.selectFrom('cuentas as c')
    .innerJoin('subcuentas as s', (join) => join.on('s.idsubcuenta', '=', (eb) => eb.selectFrom('subcuentas as first').select('first.idsubcuenta')
      .whereRef('first.idcuenta', '=', 'c.idcuenta').orderBy('first.codsubcuenta').limit(1)))
    .select(columns)
    .where('c.codejercicio', '=', codejercicio)
    .where('c.codcuentaesp', 'in', [...roles]);
  const query = named.length
    ? tagged.unionAll(db.selectFrom('subcuentas as s').innerJoin('cuentas as c', 'c.idcuenta', 's.idcuenta').select(columns)
      .where('s.codejercicio', '=', codejercicio).where('s.codsubcuenta', 'in', named))
    : tagged;
  const rows = (await query.execute()).sort((a, b) => compare(a.codcuenta, b.codcuenta) || compare(a.codsubcuenta, b.codsubcuenta));
  const byCode = new Map<string, Subaccount>();
  const firstOf = new Map<string, Subaccount>();
  for (const row of rows) {
    const sub: Subaccount = { idsubcuenta: Number(row.idsubcuenta), codsubcuenta: String(row.codsubcuenta), idcuenta: Number(row.idcuenta), codcuenta: String(row.codcuenta) };
    byCode.set(sub.codsubcuenta, sub);
    // Rows are sorted by account code, then sub-account code: the first seen of a role is its first.
    if (row.codcuentaesp && !firstOf.has(String(row.codcuentaesp))) firstOf.set(String(row.codcuentaesp), sub);
  }
  return {
    codejercicio,
    longsubcuenta,
    byCode: (code) => (code ? byCode.get(code) : undefined),
    first: (role) => firstOf.get(role),
  };
}

/** Account codes are digits: compared as text, as the databases ordered them. */
function compare(a: unknown, b: unknown): number {
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
