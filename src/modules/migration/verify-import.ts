import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor, Engine } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { subaccountBalances } from '../accounting/index.ts';
import { DOCUMENT_TYPES, storedBreakdowns, type DocumentReference, type DocumentType } from '../documents/index.ts';
import type { TablePlan } from './import-plan.ts';
import type { ImportReport, Timed } from './import-report.ts';
import { REBUILT_COLUMNS } from './rebuild-derived.ts';
import type { SourceDatabase } from './source-database.ts';

type Row = Record<string, unknown>;
type Verification = ImportReport['verification'];

/** Half a cent: what two sums of the same stored doubles may differ by, summed in another order. */
const TOLERANCE = 0.005;
/** Differences of the calculation listed in the report (all are counted). */
const LISTED = 100;
/** Documents read per page for the calculation check. */
const PAGE = 200;

const quoteFor = (engine: Engine | 'mysql' | 'postgres') => (name: string) => (engine === 'mysql' ? `\`${name}\`` : `"${name}"`);

/**
 * The import compared with its source, in the import's transaction (so a dry run is verified
 * alike): row counts per table; the sum of every money column (each double) per serie and year
 * (lines by their document's, entry lines by their entry's year, other tables whole); the trial
 * balance per sub-account, the source's entry lines against the balances rebuilt here; and every
 * document whose stored totals this service's calculation (from its stored lines and their taxes)
 * would give otherwise, listed, never changed. `ownRows` are rows of this installation kept beside
 * the source's (its own API keys).
 */
export async function verifyImport(ctx: AppContext, trx: DbExecutor, ref: DocumentReference, source: SourceDatabase, plans: readonly TablePlan[], sourceCounts: ReadonlyMap<string, number>, ownRows: ReadonlyMap<string, number>, time: Timed): Promise<Verification> {
  const counts = await time('verify counts', () => countCheck(trx, plans, sourceCounts, ownRows));
  const sums = await time('verify sums', () => sumCheck(ctx.database.engine, trx, source, plans));
  const balance = await time('verify trial balance', () => trialBalance(trx, source));
  const calculation = await time('verify calculation', () => calculator(trx, ref));
  return { clean: false, counts, sums, trialBalance: balance, calculator: calculation };
}

async function countCheck(trx: DbExecutor, plans: readonly TablePlan[], sourceCounts: ReadonlyMap<string, number>, ownRows: ReadonlyMap<string, number>): Promise<Verification['counts']> {
  const counts: Verification['counts'] = { compared: 0, mismatches: [] };
  for (const plan of plans) {
    const target = Number((await sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM ${sql.table(plan.model.table)}`.execute(trx)).rows[0]!.n) - (ownRows.get(plan.model.table) ?? 0);
    const expected = sourceCounts.get(plan.model.table) ?? 0;
    counts.compared++;
    if (target !== expected) counts.mismatches.push({ table: plan.model.table, source: expected, target });
  }
  return counts;
}

async function sumCheck(engine: Engine, trx: DbExecutor, source: SourceDatabase, plans: readonly TablePlan[]): Promise<Verification['sums']> {
  const sums: Verification['sums'] = { compared: 0, mismatches: [] };
  for (const plan of plans) {
    const query = sumsQuery(plan, plans);
    if (!query) continue;
    const [fromSource, fromTarget] = [await source.query(query(quoteFor(source.engine))), (await sql.raw<Row>(query(quoteFor(engine))).execute(trx)).rows];
    const keyed = (rows: Row[]) => new Map(rows.map((row) => [`${row.g1 ?? ''}|${row.g2 ?? ''}`, row]));
    const [a, b] = [keyed(fromSource), keyed(fromTarget)];
    for (const group of new Set([...a.keys(), ...b.keys()])) {
      for (const column of moneyColumns(plan)) {
        const [left, right] = [Number(a.get(group)?.[`s_${column}`] ?? 0), Number(b.get(group)?.[`s_${column}`] ?? 0)];
        sums.compared++;
        if (Math.abs(left - right) >= TOLERANCE) sums.mismatches.push({ table: plan.model.table, group, column, source: left, target: right });
      }
    }
  }
  return sums;
}

/**
 * The double columns of a copied table (amounts, and the odd rate: summed alike, as a checksum),
 * but those rebuilt from the books (balances, stock totals, risk), which the trial balance checks.
 */
const moneyColumns = (plan: TablePlan) => plan.columns.filter((name) => plan.model.fields[name]!.type === 'double' && !REBUILT_COLUMNS[plan.model.table]?.includes(name));

/**
 * The sums of a table's money columns per group, as SQL for either side (given its quoting): a
 * document header per serie and year, a line per its document's, an entry line per its entry's
 * year, a table with a year per year; `g1`, `g2` the group.
 */
function sumsQuery(plan: TablePlan, plans: readonly TablePlan[]): ((q: (name: string) => string) => string) | undefined {
  const columns = moneyColumns(plan);
  if (!columns.length) return undefined;
  const has = (name: string) => plan.columns.includes(name);
  const copied = new Set(plans.map((candidate) => candidate.model.table));
  const header = DOCUMENT_TYPES.find((type) => type.line.table === plan.model.table && copied.has(type.header.table));
  return (q) => {
    const summed = (alias: string) => columns.map((name) => `COALESCE(SUM(${alias}.${q(name)}), 0) AS ${q(`s_${name}`)}`).join(', ');
    const table = q(plan.model.table);
    if (has('codserie') && has('codejercicio')) return `SELECT t.${q('codserie')} AS g1, t.${q('codejercicio')} AS g2, ${summed('t')} FROM ${table} t GROUP BY t.${q('codserie')}, t.${q('codejercicio')}`;
    if (header) return `SELECT h.${q('codserie')} AS g1, h.${q('codejercicio')} AS g2, ${summed('t')} FROM ${table} t JOIN ${q(header.header.table)} h ON h.${q(header.key)} = t.${q(header.key)} GROUP BY h.${q('codserie')}, h.${q('codejercicio')}`;
    if (plan.model.table === 'partidas' && copied.has('asientos')) return `SELECT a.${q('codejercicio')} AS g1, '' AS g2, ${summed('t')} FROM ${table} t JOIN ${q('asientos')} a ON a.${q('idasiento')} = t.${q('idasiento')} GROUP BY a.${q('codejercicio')}`;
    if (has('codejercicio')) return `SELECT t.${q('codejercicio')} AS g1, '' AS g2, ${summed('t')} FROM ${table} t GROUP BY t.${q('codejercicio')}`;
    return `SELECT '' AS g1, '' AS g2, ${summed('t')} FROM ${table} t`;
  };
}

/** Each sub-account's balance here (rebuilt from the lines) against what the source's entry lines sum to. */
async function trialBalance(trx: DbExecutor, source: SourceDatabase): Promise<Verification['trialBalance']> {
  const q = source.quote;
  const lines = await source.query(`SELECT s.${q('codejercicio')} AS y, s.${q('codsubcuenta')} AS c, COALESCE(SUM(p.${q('debe')}), 0) AS d, COALESCE(SUM(p.${q('haber')}), 0) AS h
    FROM ${q('partidas')} p JOIN ${q('subcuentas')} s ON s.${q('idsubcuenta')} = p.${q('idsubcuenta')} GROUP BY s.${q('codejercicio')}, s.${q('codsubcuenta')}`);
  const expected = new Map(lines.map((row) => [`${row.y}|${row.c}`, { debe: Number(row.d), haber: Number(row.h) }]));
  const result: Verification['trialBalance'] = { compared: 0, mismatches: [] };
  for (const row of await subaccountBalances(trx)) {
    const sourceSums = expected.get(`${row.codejercicio}|${row.codsubcuenta}`) ?? { debe: 0, haber: 0 };
    const target = { debe: row.debe, haber: row.haber };
    result.compared++;
    if (Math.abs(sourceSums.debe - target.debe) >= TOLERANCE || Math.abs(sourceSums.haber - target.haber) >= TOLERANCE) {
      result.mismatches.push({ codejercicio: row.codejercicio, codsubcuenta: row.codsubcuenta, source: sourceSums, target });
    }
  }
  return result;
}

const TOTALS = ['neto', 'totaliva', 'totalrecargo', 'totalirpf', 'total'] as const;
const cents = (value: unknown) => Math.round(Number(value ?? 0) * 100);

/** Every document's stored totals against this service's calculation of its stored lines. */
async function calculator(trx: DbExecutor, ref: DocumentReference): Promise<Verification['calculator']> {
  const result: Verification['calculator'] = { checked: 0, count: 0, differences: [] };
  for (const type of DOCUMENT_TYPES) {
    let after = 0;
    for (;;) {
      const headers = (await trx.selectFrom(type.header.table).selectAll().where(type.key, '>', after).orderBy(type.key).limit(PAGE).execute()).map(rowReader(type.header));
      if (!headers.length) break;
      after = Number(headers[headers.length - 1]![type.key]);
      await checkPage(trx, ref, type, headers, result);
    }
  }
  return result;
}

async function checkPage(trx: DbExecutor, ref: DocumentReference, type: DocumentType, headers: Row[], result: Verification['calculator']): Promise<void> {
  const breakdowns = await storedBreakdowns(trx, ref, type, headers);
  for (const header of headers) {
    const id = Number(header[type.key]);
    const { totals } = breakdowns.get(id)!;
    result.checked++;
    const differing = TOTALS.filter((field) => cents(header[field]) !== cents(totals[field]));
    if (!differing.length) continue;
    result.count++;
    for (const field of differing) {
      if (result.differences.length < LISTED) result.differences.push({ table: type.header.table, id, codigo: String(header.codigo ?? ''), field, stored: Number(header[field] ?? 0), computed: totals[field] });
    }
  }
}
