import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, specifiedRecord } from '../../http/resource-route.ts';
import { documentType } from '../documents/index.ts';
import { RECORDED_TYPE } from '../verifactu/index.ts';
import { cancelInvoiceFile } from './cancel-file.ts';
import { correctFile, resendFile } from './correct-file.ts';
import { inspectionData } from './inspection.ts';
import { registroTicketbaiModel } from './record-models.ts';

/**
 * The module's endpoints, each a resource of its own for access rules (a file's XML is part of
 * `registroticketbai`): an invoice cancelled, a file as signed, a file corrected through Zuzendu,
 * a refused file sent again, and the software's inspection data.
 */
export function registerTicketbaiRoutes(app: FastifyInstance, ctx: AppContext): void {
  const invoice = documentType(RECORDED_TYPE);

  ctx.customResources.add('anularTicketBAI');
  addResourceRoute(app, {
    resource: 'anularTicketBAI',
    urls: ['/api/3/anularTicketBAI', '/api/3/anularTicketBAI/:id'],
    shape: { doc: invoice.header, registro: registroTicketbaiModel },
    methods: { POST: { handler: async (request) => cancelInvoiceFile(ctx, specifiedRecord(request)) } },
  });

  addResourceRoute(app, {
    resource: registroTicketbaiModel.resource,
    urls: [registroTicketbaiModel.resource, registroTicketbaiModel.alias].map((name) => `/api/3/${name}/:id/xml`),
    methods: {
      GET: {
        handler: async (request, reply) => {
          const file = await ctx.database.kysely.selectFrom(registroTicketbaiModel.table).select('fichero').where('id', '=', Number(parseId(registroTicketbaiModel, request))).executeTakeFirst();
          if (!file) throw new AppError('record-not-found');
          reply.type('application/xml; charset=utf-8');
          return String(file.fichero);
        },
      },
    },
  });

  ctx.customResources.add('ticketbaiSoftware');
  addResourceRoute(app, {
    resource: 'ticketbaiSoftware',
    urls: ['/api/3/ticketbaiSoftware'],
    methods: { GET: { handler: async () => inspectionData(ctx) } },
  });

  for (const [resource, act] of [['zuzenduTicketBAI', correctFile], ['reenviarTicketBAI', resendFile]] as const) {
    ctx.customResources.add(resource);
    addResourceRoute(app, {
      resource,
      urls: [`/api/3/${resource}`, `/api/3/${resource}/:id`],
      shape: registroTicketbaiModel,
      methods: {
        POST: {
          handler: async (request, reply) => {
            specifiedRecord(request);
            const record = await act(ctx, Number(parseId(registroTicketbaiModel, request)));
            if (resource === 'zuzenduTicketBAI') reply.code(201);
            return record;
          },
        },
      },
    });
  }
}
