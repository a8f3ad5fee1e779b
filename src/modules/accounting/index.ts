import type { Module } from '../../module.ts';
import { registerAccountingRoutes } from './accounting-routes.ts';
import { cuentaModel, subcuentaModel } from './account-models.ts';
import { importChartIntoNewYears } from './automatic-chart.ts';
import { declareChartReference } from './chart-reference.ts';
import { entryCounterModel } from './entry-number.ts';
import { asientoModel, partidaModel } from './entry-models.ts';
import { conceptoPartidaModel, cuentaEspecialModel, diarioModel, regularizacionImpuestoModel } from './journal-models.ts';

export { asientoModel, conceptoPartidaModel, cuentaEspecialModel, cuentaModel, diarioModel, partidaModel, regularizacionImpuestoModel, subcuentaModel };
export { importChart, type ChartImport } from './import-chart.ts';
export { accountTree, moveBalances, type LineAmounts } from './balances.ts';
export { openEntryCounters, rebuildBalances, subaccountBalances, type StaleBalance } from './rebuild-balances.ts';
export { entryLinesStatements, entryRefusalOf, entryRefusalRead, newestEntryReference, numberedEntryId, numberedEntryStatement, removeEntryHeader, type EntryOfLines } from './entry-statements.ts';
export { nextEntryNumber } from './entry-number.ts';
export { insideLockedSettlement, lockedSettlementRead, openExercise } from './ledger.ts';
export { trialBalanceRequest } from './accounting-routes.ts';
export { entryRefusal, isBalanced, removeEntries, unbalanced, writeEntry } from './write-entry.ts';
export type { NewEntry, NewEntryLine } from './new-entry.ts';
export { chartLock, chartLockStatement, heldChartLock } from './entry-number.ts';
export { chartChanged, yearChart } from './chart-reference.ts';
export type { TrialBalance, TrialBalanceLine } from './trial-balance.ts';

/**
 * The accounting of the reference installation: journals, special-account roles, entry concepts,
 * the chart of accounts per fiscal year (imported from the country's default chart on demand, and
 * into new years when the `defaultplan` setting is on), entries with their lines and VAT
 * settlements, balances kept exact in every change's transaction, and the trial balance. Posting
 * documents and payments is the `posting` module's (docs/accounting.md).
 */
export function accountingModule(): Module {
  return {
    name: 'accounting',
    models: [
      diarioModel, cuentaEspecialModel, conceptoPartidaModel, cuentaModel, subcuentaModel, asientoModel, partidaModel,
      regularizacionImpuestoModel, entryCounterModel,
    ],
    setup(ctx) {
      declareChartReference(ctx);
      importChartIntoNewYears(ctx);
    },
    register: registerAccountingRoutes,
  };
}
