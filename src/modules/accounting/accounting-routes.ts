import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { bodyOf } from '../../http/body.ts';
import { addResourceRoute } from '../../http/resource-route.ts';
import { parseDate } from '../../models/coerce.ts';
import { companyOf } from '../company/index.ts';
import { exerciseOf } from '../fiscal/index.ts';
import { importChart } from './import-chart.ts';
import { trialBalance, type TrialBalance } from './trial-balance.ts';

function text(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name];
  if (Array.isArray(value)) throw new AppError('duplicate-parameter', { parameter: name });
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') throw validationError({ [name]: 'invalid-value' });
  return String(value).trim();
}

function dateParameter(query: Record<string, unknown>, name: string): string | undefined {
  const raw = text(query, name);
  if (raw === undefined) return undefined;
  const date = parseDate(raw);
  if (!date) throw validationError({ [name]: 'invalid-date' });
  return date;
}

/**
 * The trial balance of `?codejercicio=` (with optional `desde`/`hasta` dates): 422 without the
 * year, 404 for an unknown one. Shared by its JSON endpoint and the export module's files.
 */
export async function trialBalanceRequest(ctx: AppContext, query: Record<string, unknown>): Promise<TrialBalance> {
  const codejercicio = text(query, 'codejercicio');
  if (!codejercicio) throw validationError({ codejercicio: 'required' });
  const range = { desde: dateParameter(query, 'desde'), hasta: dateParameter(query, 'hasta') };
  const db = ctx.database.kysely;
  if (!(await exerciseOf(db, codejercicio))) throw new AppError('record-not-found');
  return trialBalance(db, codejercicio, (await ctx.settings()).decimals, range);
}

/**
 * `POST /api/3/importarPlanContable` (the country's default chart into a fiscal year, one
 * transaction, 200 with what it added) and `GET /api/3/balanceSumasSaldos`; each a resource of
 * its own for access rules.
 */
export function registerAccountingRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('importarPlanContable');
  addResourceRoute(app, {
    resource: 'importarPlanContable',
    urls: ['/api/3/importarPlanContable'],
    methods: {
      POST: {
        handler: async (request) => {
          const { body } = bodyOf(request);
          const fields = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
          const codejercicio = text(fields, 'codejercicio');
          if (!codejercicio) throw validationError({ codejercicio: 'required' });
          const asked = text(fields, 'codpais')?.toUpperCase();
          const { codpais: fallback } = await ctx.settings();
          return inTransaction(ctx.database, async (trx) => {
            const exercise = await exerciseOf(trx, codejercicio);
            if (!exercise) throw new AppError('record-not-found');
            const company = exercise.idempresa === null ? undefined : await companyOf(trx, exercise.idempresa);
            return importChart(ctx, trx, codejercicio, asked ?? ((company?.codpais as string | null | undefined) || fallback));
          });
        },
      },
    },
  });

  ctx.customResources.add('balanceSumasSaldos');
  addResourceRoute(app, {
    resource: 'balanceSumasSaldos',
    urls: ['/api/3/balanceSumasSaldos'],
    methods: { GET: { handler: async (request) => trialBalanceRequest(ctx, request.query as Record<string, unknown>) } },
  });
}
