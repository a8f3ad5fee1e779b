import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, type Handler, type OperationDoc } from '../../http/resource-route.ts';
import { companyOf } from '../company/index.ts';
import { cuentaBancoModel } from '../finance/index.ts';
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
}
