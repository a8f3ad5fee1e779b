import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { addResourceRoute } from '../../http/resource-route.ts';
import { trialBalanceRequest } from '../accounting/index.ts';
import { reportCsv, reportXlsx, type ReportTable } from './table-export.ts';

const TYPES = {
  CSV: { contentType: 'text/csv; charset=utf-8', extension: 'csv', render: reportCsv },
  XLSX: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx', render: reportXlsx },
} as const;

/**
 * `GET /api/3/exportarBalanceSumasSaldos?codejercicio=&type=CSV|XLSX` (optional `desde`/`hasta`):
 * the trial balance (docs/accounting.md) as a file, one row per sub-account and a totals row.
 */
export function registerTrialBalanceExport(app: FastifyInstance, ctx: AppContext): void {
  const resource = 'exportarBalanceSumasSaldos';
  ctx.customResources.add(resource);
  addResourceRoute(app, {
    resource,
    urls: [`/api/3/${resource}`],
    methods: {
      GET: {
        handler: async (request, reply) => {
          const query = request.query as Record<string, unknown>;
          const asked = typeof query.type === 'string' && query.type.trim() !== '' ? query.type.trim().toUpperCase() : 'CSV';
          const type = asked === 'XLS' ? 'XLSX' : asked;
          if (!Object.hasOwn(TYPES, type)) throw new AppError('invalid-export-type', { type: query.type, supported: Object.keys(TYPES) });
          const exporter = TYPES[type as keyof typeof TYPES];
          const balance = await trialBalanceRequest(ctx, query);
          const table: ReportTable = {
            title: `balance ${balance.codejercicio}`,
            columns: ['codsubcuenta', 'descripcion', 'codcuenta', 'debe', 'haber', 'saldo'],
            rows: [
              ...balance.subcuentas.map((line) => [line.codsubcuenta, line.descripcion, line.codcuenta, line.debe, line.haber, line.saldo]),
              ['', 'TOTAL', '', balance.totales.debe, balance.totales.haber, balance.totales.saldo],
            ],
            decimals: (await ctx.settings()).decimals,
          };
          const name = `balance-sumas-saldos-${balance.codejercicio}.${exporter.extension}`;
          return reply.header('Content-Type', exporter.contentType).header('Content-Disposition', `attachment; filename="${name}"`).send(await exporter.render(table));
        },
      },
    },
  });
}
