import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { bodyOf, knownFields } from '../../http/body.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, type Handler, type OperationDoc } from '../../http/resource-route.ts';
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

/**
 * The recurring invoices' own endpoints (docs/recurring.md): the preview of the next invoices,
 * billing now, skipping the next period, resuming a paused template.
 */
export function registerRecurringRoutes(app: FastifyInstance, ctx: AppContext): void {
  const preview: Handler = async (request) => previewInvoices(ctx, await templateOf(ctx, request), (request.query as Row).n);
  const previewDoc: OperationDoc = {
    summary: 'The next invoices of a recurring invoice, computed without writing anything',
    description: '`n` (1-36, default 12): each with its period (`periodo`, `desde`, `hasta`), the day it would be dated (`fecha`), its header totals (`doc`) and lines (`lineas`) as its creation will compute them with today\'s prices. None for a finished template; 422 `lineas: required` for one without lines.',
    response: { type: 'array', items: { type: 'object', properties: { periodo: { type: 'integer' }, desde: { type: 'string', format: 'date' }, hasta: { type: 'string', format: 'date' }, fecha: { type: 'string', format: 'date' }, doc: { type: 'object' }, lineas: { type: 'array', items: { type: 'object' } } } } },
  };
  addResourceRoute(app, {
    resource: model.resource, urls: [`/api/3/${model.resource}/:id/proximas`, `/api/3/${model.alias}/:id/proximas`], methods: { GET: { handler: preview, openapi: previewDoc } },
  });

  ctx.customResources.add('generarFacturasRecurrentes');
  const generate: Handler = async (request) => {
    const { body } = bodyOf(request);
    if (Array.isArray(body)) throw new AppError('invalid-body');
    const given = knownFields(body, ['idrecurrente']).idrecurrente;
    if (given === undefined || given === null || given === '') return billDue(ctx);
    if (!(typeof given === 'number' || (typeof given === 'string' && /^\d{1,9}$/.test(given))) || !Number.isInteger(Number(given))) throw validationError({ idrecurrente: 'invalid-integer' });
    if (!(await ctx.store.get(model, Number(given)))) throw validationError({ idrecurrente: 'not-found' });
    return billDue(ctx, Number(given));
  };
  const period = { idrecurrente: { type: 'integer' }, periodo: { type: 'integer' }, desde: { type: 'string', format: 'date' } };
  const generateDoc: OperationDoc = {
    summary: 'Bill the due periods of every active recurring invoice now (or of one)',
    body: { type: 'object', additionalProperties: false, properties: { idrecurrente: { type: 'integer' } } },
    response: {
      type: 'object',
      properties: {
        created: { type: 'array', items: { type: 'object', properties: { ...period, idfactura: { type: 'integer' }, codigo: { type: 'string' } } } },
        failed: { type: 'array', items: { type: 'object', properties: { ...period, code: { type: 'string' }, detail: { type: 'object' } } } },
      },
    },
  };
  addResourceRoute(app, { resource: 'generarFacturasRecurrentes', urls: ['/api/3/generarFacturasRecurrentes'], methods: { POST: { handler: generate, openapi: generateDoc } } });

  ctx.customResources.add('omitirPeriodoRecurrente');
  const skip: Handler = async (request) => {
    const template = await templateOf(ctx, request);
    const { desde } = knownFields(bodyOf(request).body, ['desde']);
    await inTransaction(ctx.database, async (db) => {
      const state = await templateState(db, template);
      if (state.finished) throw validationError({ estado: 'finished' });
      // The period the client saw as next (`desde`, its `proximafecha`): if it was billed meanwhile, the next one is not skipped blind.
      if (desde !== undefined && desde !== null && desde !== '' && String(desde) !== state.desde) throw validationError({ desde: 'not-next' });
      await db.insertInto('facturasrecurrentes_periodos').values({
        idrecurrente: Number(template.idrecurrente), periodo: state.next, desde: state.desde, hasta: state.hasta, estado: 'omitido', creado: ctx.clock.timestamp(),
      }).execute();
      await db.updateTable('facturasrecurrentes').set({ ultimoerror: null }).where('idrecurrente', '=', Number(template.idrecurrente)).execute();
      await refreshTemplate(db, template);
    });
    return ctx.store.get(model, Number(template.idrecurrente));
  };
  const skipDoc: OperationDoc = {
    summary: 'Skip the next period of a recurring invoice (one that cannot be billed)',
    description: '`desde`: the first day of the period meant (the template\'s `proximafecha` as the client saw it); when another is next by now, 422 `desde: not-next` and nothing is skipped.',
    body: { type: 'object', properties: { desde: { type: 'string', format: 'date' } } },
    response: { $ref: `#/components/schemas/${model.resource}` },
  };
  addResourceRoute(app, { resource: 'omitirPeriodoRecurrente', urls: ['/api/3/omitirPeriodoRecurrente/:id'], shape: model, methods: { POST: { handler: skip, openapi: skipDoc } } });

  ctx.customResources.add('reanudarFacturaRecurrente');
  const resume: Handler = async (request) => {
    const template = await templateOf(ctx, request);
    if (template.estado !== 'pausada') throw validationError({ estado: 'not-paused' });
    const { facturarpendientes } = knownFields(bodyOf(request).body, ['facturarpendientes']);
    const keepMissed = facturarpendientes === true || facturarpendientes === 'true' || facturarpendientes === '1' || facturarpendientes === 1;
    return ctx.store.update(model, Number(template.idrecurrente), { estado: 'activa', ...(keepMissed ? { desdeperiodo: Number(template.desdeperiodo ?? 0) } : {}) });
  };
  const resumeDoc: OperationDoc = {
    summary: 'Resume a paused recurring invoice',
    description: 'From the first period starting today or later; `facturarpendientes: true` bills the periods missed while paused too.',
    body: { type: 'object', properties: { facturarpendientes: { type: 'boolean' } } },
    response: { $ref: `#/components/schemas/${model.resource}` },
  };
  addResourceRoute(app, { resource: 'reanudarFacturaRecurrente', urls: ['/api/3/reanudarFacturaRecurrente/:id'], shape: model, methods: { POST: { handler: resume, openapi: resumeDoc } } });
}
