import type { AppContext } from '../../app-context.ts';
import { companyOf } from '../company/index.ts';
import { settingsIn } from '../settings/index.ts';
import { chartShape, countryChart } from './chart-files.ts';
import { importChart } from './import-chart.ts';

/**
 * With the `defaultplan` setting on (new installations), every fiscal year gets its company
 * country's default chart in the transaction that creates it, whoever creates it: the API, or a
 * document dated in a year that had none. A country without a default chart gets none.
 */
export function importChartIntoNewYears(ctx: AppContext): void {
  ctx.store.watch(['ejercicio'], async (db, _model, change) => {
    if (change?.action !== 'create' || change.record.estado !== 'ABIERTO') return;
    const settings = await settingsIn(db);
    if (!settings.defaultplan) return;
    const idempresa = change.record.idempresa;
    const company = typeof idempresa === 'number' ? await companyOf(db, idempresa) : undefined;
    const codpais = String((company?.codpais as string | null | undefined) || settings.codpais);
    const chart = countryChart(codpais);
    // A year whose sub-account length cannot hold the chart's codes (no longer than an account's) gets none.
    if (!chart || Number(change.record.longsubcuenta ?? chartShape(chart).subLength) <= chartShape(chart).accountLength) return;
    await importChart(ctx, db, String(change.record.codejercicio), codpais, { keepLength: true });
  });
}
