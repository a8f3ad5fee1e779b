import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { openEntryCounters, rebuildBalances } from '../accounting/index.ts';
import { rebuildStockTotals } from '../catalogue/index.ts';
import { DOCUMENT_TYPES, rebuildCustomerRisks, recordExistingGaps, type DocumentReference } from '../documents/index.ts';
import { recordTaxRowsComplete, writeMissingTaxRows } from '../taxforms/index.ts';
import type { ImportReport, Timed } from './import-report.ts';

type Finding = ImportReport['findings'][number];

/**
 * The columns rebuilt here rather than kept as the source stored them: the verification compares
 * them otherwise (the trial balance; the findings say how many differed).
 */
export const REBUILT_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  subcuentas: ['debe', 'haber', 'saldo'], cuentas: ['debe', 'haber', 'saldo'], productos: ['stockfis'], variantes: ['stockfis'], clientes: ['riesgoalcanzado'],
};

/** Invoices whose tax rows are written per statement group (taxforms' own chunk). */
const TAX_CHUNK = 200;

/**
 * The state the service derives from the books, rebuilt from the rows just copied, in the import's
 * transaction, so that the service works on from where the source stopped: each answers what it
 * found different from what the source stored (the source's background queue updates balances and
 * flags later, so a real installation's are often behind).
 * - stock totals of variants and products from their warehouses' stock;
 * - each customer's reached risk from its documents (customer-risk.ts's own expression);
 * - sub-account and account balances from the entry lines;
 * - each year's entry counter (the lock entries are numbered under);
 * - the tax rows the tax forms read, for every invoice, each company recorded complete;
 * - generated-code counters, recounted from the copied codes on their next use;
 * - the free numbers of each serie that fills gaps (number-gaps.ts), from one scan of its highest
 *   numbers, as the system looks for them. The sequences themselves need nothing: the numbering
 *   reads them as the source left them (a counter behind its numbers moves past the highest:
 *   facturascripts-model.md 3.8).
 */
export async function rebuildDerived(ctx: AppContext, trx: DbExecutor, ref: DocumentReference, time: Timed): Promise<Finding[]> {
  const findings: Finding[] = [];
  const found = (code: string, count: number, detail?: unknown) => {
    if (count) findings.push({ code, count, ...(detail === undefined ? {} : { detail }) });
  };
  const { dialect } = ctx.database;
  found('stock-totals-rebuilt', await time('stock totals', () => rebuildStockTotals(trx)));
  found('customer-risk-rebuilt', await time('customer risk', () => rebuildCustomerRisks(trx, dialect, Number(ref.settings.decimals ?? 2))));
  const stale = await time('balances', () => rebuildBalances(trx));
  found('stale-subaccount-balances', stale.length, stale.slice(0, 20));
  await openEntryCounters(trx, dialect);
  await time('tax rows', () => rebuildTaxRows(ctx, trx, ref));
  await trx.deleteFrom('code_counters').where('name', 'not like', 'lock:%').execute();
  found('numbering-gaps', await time('numbering gaps', () => recordExistingGaps(trx, ctx.database.dialect, DOCUMENT_TYPES)));
  return findings;
}

/** Every invoice's tax rows, from its stored lines, a chunk at a time; then every company is complete. */
async function rebuildTaxRows(ctx: AppContext, trx: DbExecutor, ref: DocumentReference): Promise<void> {
  for (const type of DOCUMENT_TYPES.filter((candidate) => candidate.invoice)) {
    let after = 0;
    for (;;) {
      const ids = (await trx.selectFrom(type.header.table).select(type.key).where(type.key, '>', after).orderBy(type.key).limit(TAX_CHUNK).execute()).map((row) => Number(row[type.key]));
      if (!ids.length) break;
      await writeMissingTaxRows(ctx, trx, ref, type, ids);
      after = ids[ids.length - 1]!;
    }
  }
  await recordTaxRowsComplete(ctx, trx, [...ref.company.companies.keys()]);
}
