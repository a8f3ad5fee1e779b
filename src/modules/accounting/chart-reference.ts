import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { accountTree } from './balances.ts';
import { cuentaEspecialModel } from './journal-models.ts';
import { cuentaModel, subcuentaModel } from './account-models.ts';

/** A sub-account of a year, as postings need it. */
export interface Subaccount {
  idsubcuenta: number;
  codsubcuenta: string;
  idcuenta: number;
  codcuenta: string;
}

/**
 * What postings read of one fiscal year's chart, kept between postings (a document's commit
 * reads none of it: docs/performance.md): whether the year has a chart, the first sub-account of
 * each special-account role, the sub-accounts asked for by code (a miss is remembered too), and
 * the accounts above each sub-account (for the balances). Filled on demand, outside transactions.
 */
export class YearChart {
  readonly codejercicio: string;
  readonly longsubcuenta: number;
  readonly hasChart: boolean;
  readonly #roles: ReadonlyMap<string, Subaccount>;
  readonly #byCode = new Map<string, Subaccount | null>();
  readonly #tree = new Map<number, readonly number[]>();

  constructor(codejercicio: string, longsubcuenta: number, hasChart: boolean, roles: ReadonlyMap<string, Subaccount>) {
    this.codejercicio = codejercicio;
    this.longsubcuenta = longsubcuenta;
    this.hasChart = hasChart;
    this.#roles = roles;
  }

  /** The lowest sub-account of the lowest-coded account tagged `role`. */
  first(role: string): Subaccount | undefined {
    return this.#roles.get(role);
  }

  /** A sub-account by code, once `resolve` has looked for it; undefined when the year has none. */
  byCode(code: string | null | undefined): Subaccount | undefined {
    return code ? (this.#byCode.get(code) ?? undefined) : undefined;
  }

  /** Looks up the codes not looked up yet (one read for all of them). */
  async resolve(db: DbExecutor, codes: ReadonlyArray<string | null | undefined>): Promise<void> {
    const missing = [...new Set(codes.filter((code): code is string => typeof code === 'string' && code !== '' && !this.#byCode.has(code)))];
    if (!missing.length) return;
    const rows = await db.selectFrom('subcuentas as s').innerJoin('cuentas as c', 'c.idcuenta', 's.idcuenta')
      .select(['s.idsubcuenta', 's.codsubcuenta', 's.idcuenta', 'c.codcuenta']).where('s.codejercicio', '=', this.codejercicio).where('s.codsubcuenta', 'in', missing).execute();
    for (const code of missing) this.#byCode.set(code, null);
    for (const row of rows) this.#byCode.set(String(row.codsubcuenta), subaccountOf(row));
  }

  /**
   * Remembers a sub-account created (or found) after the cache looked for its code, with the
   * accounts above it: once its transaction has committed (a creation that rolled back never
   * existed). A code another instance remembered as missing is looked for again by the posting
   * that needs it, which finds it.
   */
  learn(sub: Subaccount, above: readonly number[]): void {
    this.#byCode.set(sub.codsubcuenta, sub);
    this.#tree.set(sub.idsubcuenta, above);
  }

  /** The accounts above each sub-account (its own first), once `resolveTree` has read them. */
  tree(): ReadonlyMap<number, readonly number[]> {
    return this.#tree;
  }

  /** Reads the accounts above the sub-accounts not read yet (one read). */
  async resolveTree(db: DbExecutor, ids: readonly number[]): Promise<void> {
    const missing = [...new Set(ids.filter((id) => !this.#tree.has(id)))];
    if (!missing.length) return;
    for (const [id, above] of await accountTree(db, missing)) this.#tree.set(id, above);
  }
}

const subaccountOf = (row: Record<string, unknown>): Subaccount => ({
  idsubcuenta: Number(row.idsubcuenta), codsubcuenta: String(row.codsubcuenta), idcuenta: Number(row.idcuenta), codcuenta: String(row.codcuenta),
});

/** The years read so far, by code (the cache's value: dropped whole when the chart changes anywhere). */
export type ChartReference = Map<string, Promise<YearChart | undefined>>;

const CACHE = 'chart';

/** Declares the chart's cache: any write to years, accounts, sub-accounts or roles through the store drops it; `chartChanged` too. */
export function declareChartReference(ctx: AppContext): void {
  ctx.shared.cache<ChartReference>(CACHE, ['ejercicio', cuentaModel.resource, subcuentaModel.resource, cuentaEspecialModel.resource], async () => new Map());
}

/**
 * Writes to the chart made around the store (a chart import) drop the cache (a posting's new
 * sub-account is added to it instead: `learn`): in the caller's transaction, seen by this instance
 * at its commit and by the others within STATE_REFRESH_MS.
 */
export function chartChanged(ctx: AppContext, db: DbExecutor): Promise<void> {
  return ctx.shared.bump(db, CACHE);
}

/**
 * One year's chart for postings, from the cache (outside a transaction); undefined when the year
 * does not exist. A sub-account or role changed on another instance a moment ago is seen within
 * STATE_REFRESH_MS (docs/accounting.md).
 */
export async function yearChart(ctx: AppContext, codejercicio: string): Promise<YearChart | undefined> {
  const years = await ctx.shared.named<ChartReference>(CACHE).read();
  let year = years.get(codejercicio);
  if (!year) {
    year = loadYear(ctx.database.kysely, codejercicio);
    years.set(codejercicio, year);
    // A failed read is not kept.
    year.catch(() => years.delete(codejercicio));
  }
  return year;
}

async function loadYear(db: DbExecutor, codejercicio: string): Promise<YearChart | undefined> {
  const row = await db.selectFrom('ejercicios').select(['longsubcuenta', sql<unknown>`EXISTS (SELECT 1 FROM subcuentas s WHERE s.codejercicio = ${codejercicio})`.as('chart')])
    .where('codejercicio', '=', codejercicio).executeTakeFirst();
  if (!row) return undefined;
  const hasChart = row.chart === true || Number(row.chart) === 1;
  const roles = new Map<string, Subaccount>();
  if (hasChart) {
    const tagged = await db.selectFrom('cuentas as c')
      .innerJoin('subcuentas as s', (join) => join.on('s.idsubcuenta', '=', (eb) => eb.selectFrom('subcuentas as first').select('first.idsubcuenta')
        .whereRef('first.idcuenta', '=', 'c.idcuenta').orderBy('first.codsubcuenta').limit(1)))
      .select(['s.idsubcuenta', 's.codsubcuenta', 's.idcuenta', 'c.codcuenta', 'c.codcuentaesp'])
      .where('c.codejercicio', '=', codejercicio).where('c.codcuentaesp', 'is not', null).execute();
    // The lowest-coded account of a role first, as the reference picks it.
    tagged.sort((a, b) => compare(a.codcuenta, b.codcuenta) || compare(a.codsubcuenta, b.codsubcuenta));
    for (const sub of tagged) if (sub.codcuentaesp && !roles.has(String(sub.codcuentaesp))) roles.set(String(sub.codcuentaesp), subaccountOf(sub));
  }
  return new YearChart(codejercicio, Number(row.longsubcuenta ?? 10), hasChart, roles);
}

/** Account codes are digits: compared as text, as the databases ordered them. */
function compare(a: unknown, b: unknown): number {
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
