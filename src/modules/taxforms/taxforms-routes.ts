import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { addResourceRoute, type OperationDoc } from '../../http/resource-route.ts';
import { BOXES_303, modelo303 } from './modelo303.ts';
import { taxPeriodOf } from './tax-period.ts';

/** The tax forms' endpoints (docs/tax-forms.md): each a resource of its own for access rules. */
export function registerTaxFormRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('modelo303');
  const doc: OperationDoc = {
    summary: 'The VAT return (Modelo 303) of a quarter or month, computed from the books',
    description: '`codejercicio` and `periodo` (`1T`-`4T`, or `01`-`12` for monthly filers) required; `idempresa` for a company other than the default. Every box of pages 1 and 3, keyed by the agency\'s box number, amounts to the cent; `avisos` lists what no box takes. 422 naming the parameter otherwise.',
    response: {
      type: 'object',
      properties: {
        modelo: { type: 'string' }, codejercicio: { type: 'string' }, periodo: { type: 'string' }, idempresa: { type: 'integer' },
        desde: { type: 'string', format: 'date' }, hasta: { type: 'string', format: 'date' },
        casillas: { type: 'object', properties: Object.fromEntries(BOXES_303.map((name) => [name, { type: 'number' }])) },
        tipodeclaracion: { type: 'string', enum: ['I', 'C', 'N'] },
        avisos: { type: 'array', items: { type: 'object' } },
      },
    },
  };
  addResourceRoute(app, {
    resource: 'modelo303', urls: ['/api/3/modelo303'],
    methods: { GET: { handler: async (request) => modelo303(ctx, await taxPeriodOf(ctx, request.query as Record<string, unknown>)), openapi: doc } },
  });
}
