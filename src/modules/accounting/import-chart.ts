import type { AppContext } from '../../app-context.ts';
import { chartChanged } from './chart-reference.ts';
import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import { chartShape, countryChart, resizeCode, type ChartEntry } from './chart-files.ts';
import { openExercise } from './ledger.ts';

/** What an import added (a second import of the same chart adds nothing). */
export interface ChartImport {
  codejercicio: string;
  codpais: string;
  cuentas: number;
  subcuentas: number;
  cuentasesp: number;
  impuestos: number;
}

const TAX_ACCOUNT_FIELDS = ['codsubcuentarep', 'codsubcuentarepintra', 'codsubcuentasop', 'codsubcuentasopintra'] as const;

/** The parent of a code: the longest other account code that prefixes it. */
function parentOf(code: string, accounts: ReadonlySet<string>): string | null {
  for (let length = code.length - 1; length > 0; length--) if (accounts.has(code.slice(0, length))) return code.slice(0, length);
  return null;
}

/**
 * Imports a country's default chart into a fiscal year, in the caller's transaction (the reference's
 * AccountingPlanImport, docs/accounting.md): the special-account roles first, then the accounts
 * level by level (the shortest codes are the roots; a code's parent is the longest other code that
 * prefixes it), then the sub-accounts (the longest codes) under their account, and the taxes'
 * sub-account codes where a tax has none. Codes the year has already are kept, so a second import
 * adds nothing. A year with no sub-accounts takes the chart's sub-account length (unless
 * `keepLength`: a year just created with its own length keeps it); one with sub-accounts keeps its own, and the chart's codes are widened or narrowed in their longest run of
 * zeros; a length that cannot hold them is refused (422).
 */
export async function importChart(ctx: AppContext, db: DbExecutor, codejercicio: string, codpais: string, options: { keepLength?: boolean } = {}): Promise<ChartImport> {
  // One import of a year at a time, whatever the instance: the second finds the first's codes.
  await ctx.database.dialect.locking(db.selectFrom('ejercicios').select('codejercicio').where('codejercicio', '=', codejercicio)).execute();
  const exercise = await openExercise(db, codejercicio);
  if (!exercise) throw validationError({ codejercicio: 'not-found' });
  const chart = countryChart(codpais);
  if (!chart) throw validationError({ codpais: 'no-default-chart' });
  const counts: ChartImport = { codejercicio, codpais, cuentas: 0, subcuentas: 0, cuentasesp: 0, impuestos: 0 };

  const knownRoles = new Set((await db.selectFrom('cuentasesp').select('codcuentaesp').execute()).map((row) => String(row.codcuentaesp)));
  const roles = chart.roles.filter((role) => !knownRoles.has(role.codcuentaesp));
  if (roles.length) await db.insertInto('cuentasesp').values(roles).execute();
  counts.cuentasesp = roles.length;

  const { subLength, accountLength } = chartShape(chart);
  const accountEntries = chart.entries.filter((entry) => entry.code.length < subLength);
  const subEntries = chart.entries.filter((entry) => entry.code.length === subLength);

  const existingSub = new Set((await db.selectFrom('subcuentas').select('codsubcuenta').where('codejercicio', '=', codejercicio).execute()).map((row) => String(row.codsubcuenta)));
  let length = exercise.longsubcuenta;
  if (!existingSub.size && length !== subLength && !options.keepLength) {
    await db.updateTable('ejercicios').set({ longsubcuenta: subLength }).where('codejercicio', '=', codejercicio).execute();
    length = subLength;
  }
  const resized = subEntries.map((entry) => ({ entry, code: resizeCode(entry.code, length) }));
  if (length <= accountLength || resized.some((item) => item.code === undefined)) throw validationError({ longsubcuenta: 'out-of-range' });

  // Accounts, shortest codes first, so that every parent has its id before its children go in.
  const ids = new Map<string, number>();
  const readIds = async () => {
    for (const row of await db.selectFrom('cuentas').select(['idcuenta', 'codcuenta']).where('codejercicio', '=', codejercicio).execute()) ids.set(String(row.codcuenta), Number(row.idcuenta));
  };
  await readIds();
  const codes = new Set([...accountEntries.map((entry) => entry.code), ...ids.keys()]);
  const levels = [...new Set(accountEntries.map((entry) => entry.code.length))].sort((a, b) => a - b);
  for (const level of levels) {
    const fresh = accountEntries.filter((entry) => entry.code.length === level && !ids.has(entry.code));
    if (!fresh.length) continue;
    await insertChunked(db, 'cuentas', fresh.map((entry: ChartEntry) => {
      const parent = parentOf(entry.code, codes);
      return {
        codcuenta: entry.code, codejercicio, descripcion: entry.descripcion, codcuentaesp: entry.codcuentaesp,
        parent_codcuenta: parent, parent_idcuenta: parent === null ? null : (ids.get(parent) ?? null), debe: 0, haber: 0, saldo: 0,
      };
    }));
    counts.cuentas += fresh.length;
    await readIds();
  }

  const subRows = resized.filter((item) => !existingSub.has(item.code!)).flatMap(({ entry, code }) => {
    const account = parentOf(entry.code, codes);
    const idcuenta = account === null ? undefined : ids.get(account);
    return idcuenta === undefined ? [] : [{
      codsubcuenta: code!, codejercicio, descripcion: entry.descripcion, codcuenta: account!, idcuenta, codcuentaesp: null, debe: 0, haber: 0, saldo: 0,
    }];
  });
  await insertChunked(db, 'subcuentas', subRows);
  counts.subcuentas = subRows.length;

  // The taxes' sub-accounts, through the store: the cached tax reference follows.
  const taxModel = ctx.registry.get('impuesto')!;
  const stored = new Map((await db.selectFrom('impuestos').select(['codimpuesto', ...TAX_ACCOUNT_FIELDS]).execute()).map((row) => [String(row.codimpuesto), row as Record<string, unknown>]));
  for (const tax of chart.taxes) {
    const row = stored.get(tax.codimpuesto);
    if (!row) continue;
    const missing = Object.fromEntries(TAX_ACCOUNT_FIELDS.filter((field) => tax[field] !== null && (row[field] === null || row[field] === '')).map((field) => [field, tax[field]]));
    if (!Object.keys(missing).length) continue;
    await ctx.store.update(taxModel, tax.codimpuesto, missing, db);
    counts.impuestos++;
  }
  // Written around the store: postings' cached view of the chart is dropped at the commit.
  await chartChanged(ctx, db);
  return counts;
}

/** Inserts many rows of a plain table, a few hundred per statement (within every engine's parameter limit). */
async function insertChunked(db: DbExecutor, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) await db.insertInto(table).values(rows.slice(start, start + 500)).execute();
}
