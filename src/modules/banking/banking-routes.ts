import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, type Handler, type OperationDoc } from '../../http/resource-route.ts';
import { companyOf } from '../company/index.ts';
import { cuentaBancoModel } from '../finance/index.ts';
import { bodyOf } from '../../http/body.ts';
import { collectRemittance, returnReceipt } from './collect-remittance.ts';
import { pain008 } from './pain008.ts';
import { remittanceModel as model } from './remittance-models.ts';

/**
 * `GET /api/3/remesasepa/{id}/xml`: the remittance's pain.008 file in its version, built from what
 * the remittance fixed when it was made (its receipts' amounts, mandates and accounts).
 */
export function registerBankingRoutes(app: FastifyInstance, ctx: AppContext): void {
  const xml: Handler = async (request, reply) => {
    const remittance = await ctx.store.get(model, parseId(model, request));
    if (!remittance) throw new AppError('record-not-found');
    const db = ctx.database.kysely;
    const [account, company, receipts] = await Promise.all([
      ctx.store.get(cuentaBancoModel, String(remittance.codcuenta), db, 'all'),
      companyOf(db, Number(remittance.idempresa)),
      db.selectFrom('remesassepa_recibos').selectAll().where('idremesa', '=', Number(remittance.idremesa)).orderBy('id').execute(),
    ]);
    const file = pain008(remittance, receipts, {
      name: String(company?.nombre ?? ''), iban: String(account?.iban ?? ''), bic: account?.swift ? String(account.swift).trim().toUpperCase() : null, identifier: String(remittance.identificador),
    }, new Date(ctx.clock.now()).toISOString().slice(0, 19));
    return reply.header('Content-Type', 'application/xml; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="remesa-${remittance.idremesa}-pain.008.${remittance.version}.xml"`).send(file);
  };
  const openapi: OperationDoc = { summary: 'The remittance\'s SEPA direct-debit file (pain.008, in the remittance\'s version)', response: { type: 'string', contentMediaType: 'application/xml' } };
  addResourceRoute(app, { resource: model.resource, urls: [`/api/3/${model.resource}/:id/xml`, `/api/3/${model.alias}/:id/xml`], methods: { GET: { handler: xml, openapi } } });

  const id = (request: Parameters<Handler>[0]) => {
    const raw = (request.params as { id?: string }).id ?? '';
    if (!/^\d{1,9}$/.test(raw)) throw new AppError('record-not-found');
    return Number(raw);
  };
  ctx.customResources.add('cobrarRemesa');
  const collectDoc: OperationDoc = {
    summary: 'Mark a remittance collected: every receipt standing in it paid on the collection day, with its accounting entry',
    description: '`fecha` (default the remittance\'s `fechacargo`). Answers the remittance with `pagados` (receipts paid now) and `yapagados` (already paid another way, left alone). A collected remittance again: 422 `estado: already-collected`.',
    body: { type: 'object', additionalProperties: false, properties: { fecha: { type: 'string', format: 'date' } } },
    response: { type: 'object', properties: { idremesa: { type: 'integer' }, estado: { type: 'string' }, fechacobro: { type: 'string', format: 'date' }, pagados: { type: 'array', items: { type: 'integer' } }, yapagados: { type: 'array', items: { type: 'integer' } } } },
  };
  addResourceRoute(app, { resource: 'cobrarRemesa', urls: ['/api/3/cobrarRemesa/:id'], shape: model, methods: { POST: { handler: async (request) => collectRemittance(ctx, id(request), bodyOf(request).body), openapi: collectDoc } } });

  ctx.customResources.add('devolverReciboRemesa');
  const returnDoc: OperationDoc = {
    summary: 'A collected receipt returned by the bank: un-paid on the return day, the bank\'s fee posted as an expense',
    description: 'The id is the customer receipt\'s (`idrecibo`). `fecha` (default today), `gastos` (the bank\'s fee, default 0), `motivo` (e.g. the SEPA reason code). The receipt no longer stands in the remittance and may be presented again. 422 `idrecibo`: `not-in-remittance`, `remittance-not-collected`, `already-returned`, `not-paid`.',
    body: { type: 'object', additionalProperties: false, properties: { fecha: { type: 'string', format: 'date' }, gastos: { type: 'number', minimum: 0 }, motivo: { type: 'string', maxLength: 100 } } },
    response: { type: 'object', properties: { idremesa: { type: 'integer' }, idrecibo: { type: 'integer' }, fechadevolucion: { type: 'string', format: 'date' }, gastosdevolucion: { type: 'number' }, recibo: { type: 'object' } } },
  };
  addResourceRoute(app, { resource: 'devolverReciboRemesa', urls: ['/api/3/devolverReciboRemesa/:id'], methods: { POST: { handler: async (request) => returnReceipt(ctx, id(request), bodyOf(request).body), openapi: returnDoc } } });
}
