import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { bodyOf } from '../../http/body.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, type Handler } from '../../http/resource-route.ts';
import { billDue } from './bill-due.ts';
import { previewInvoices } from './preview.ts';
import { recurringInvoiceModel as model } from './recurring-models.ts';
import { refreshTemplate, templateState } from './template-state.ts';

type Row = Record<string, unknown>;

async function templateOf(ctx: AppContext, request: Parameters<Handler>[0]): Promise<Row> {
  const found = await ctx.store.get(model, parseId(model, request));
  if (!found) throw new AppError('record-not-found');
  return found;
}

const fieldsOf = (body: unknown): Row => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Row) : {});

/**
 * The recurring invoices' own endpoints (docs/recurring.md): the preview of the next invoices,
 * billing now, skipping the next period, resuming a paused template.
 */
export function registerRecurringRoutes(app: FastifyInstance, ctx: AppContext): void {
  const preview: Handler = async (request) => previewInvoices(ctx, await templateOf(ctx, request), (request.query as Row).n);
  addResourceRoute(app, {
    resource: model.resource, urls: [`/api/3/${model.resource}/:id/proximas`, `/api/3/${model.alias}/:id/proximas`], methods: { GET: { handler: preview } },
  });

  ctx.customResources.add('generarFacturasRecurrentes');
  const generate: Handler = async (request) => {
    const fields = fieldsOf(bodyOf(request).body);
    const only = fields.idrecurrente === undefined || fields.idrecurrente === '' ? undefined : Number(fields.idrecurrente);
    if (only !== undefined && !(Number.isInteger(only) && only > 0 && (await ctx.store.get(model, only)))) throw validationError({ idrecurrente: 'not-found' });
    return billDue(ctx, only);
  };
  addResourceRoute(app, { resource: 'generarFacturasRecurrentes', urls: ['/api/3/generarFacturasRecurrentes'], methods: { POST: { handler: generate } } });

  ctx.customResources.add('omitirPeriodoRecurrente');
  const skip: Handler = async (request) => {
    const template = await templateOf(ctx, request);
    await inTransaction(ctx.database, async (db) => {
      const state = await templateState(db, template);
      if (state.finished) throw validationError({ estado: 'finished' });
      await db.insertInto('facturasrecurrentes_periodos').values({
        idrecurrente: Number(template.idrecurrente), periodo: state.next, desde: state.desde, hasta: state.hasta, estado: 'omitido', creado: ctx.clock.timestamp(),
      }).execute();
      await db.updateTable('facturasrecurrentes').set({ ultimoerror: null }).where('idrecurrente', '=', Number(template.idrecurrente)).execute();
      await refreshTemplate(db, template);
    });
    return ctx.store.get(model, Number(template.idrecurrente));
  };
  addResourceRoute(app, { resource: 'omitirPeriodoRecurrente', urls: ['/api/3/omitirPeriodoRecurrente/:id'], shape: model, methods: { POST: { handler: skip } } });

  ctx.customResources.add('reanudarFacturaRecurrente');
  const resume: Handler = async (request) => {
    const template = await templateOf(ctx, request);
    if (template.estado !== 'pausada') throw validationError({ estado: 'not-paused' });
    const { facturarpendientes } = fieldsOf(bodyOf(request).body);
    const keepMissed = facturarpendientes === true || facturarpendientes === 'true' || facturarpendientes === '1' || facturarpendientes === 1;
    return ctx.store.update(model, Number(template.idrecurrente), { estado: 'activa', ...(keepMissed ? { desdeperiodo: Number(template.desdeperiodo ?? 0) } : {}) });
  };
  addResourceRoute(app, { resource: 'reanudarFacturaRecurrente', urls: ['/api/3/reanudarFacturaRecurrente/:id'], shape: model, methods: { POST: { handler: resume } } });
}
