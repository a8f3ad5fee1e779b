import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError, validationError } from '../../errors.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, specifiedRecord } from '../../http/resource-route.ts';
import { coerceValue } from '../../models/coerce.ts';
import { companyOf } from '../company/index.ts';
import { documentType } from '../documents/index.ts';
import { cancelInvoice } from './cancel-invoice.ts';
import { declaration, declarationMarkdown } from './declaration.ts';
import { registroVerifactuModel } from './record-models.ts';
import { recordsOfInvoice } from './record-reads.ts';
import { RECORDED_TYPE } from './recorded-invoices.ts';
import { correctRecord } from './sending/correct-record.ts';
import { sendStatus } from './sending/send-status.ts';
import { registerRequest } from './sending/register-request.ts';
import { requerimientoModel } from './sending/send-models.ts';
import { exportRecords } from './signing/export-records.ts';
import { exportEvents, logEventExport, logRecordExport } from './event-log/export-events.ts';
import { periodInput, periodOf } from './period.ts';
import { RecordTotals } from './event-log/record-totals.ts';
import { scanCompany } from './event-log/scan.ts';
import { suministroXml } from './xml-document.ts';
import type { XmlTree } from './xml-tree.ts';

/**
 * The module's endpoints, each a resource of its own for access rules (the XML of a record is part of
 * `registroverifactu`): cancelling an invoice, a record as the AEAT's message, the chain check, a
 * period's records or events exported, the sending status, an AEAT request registered, a record
 * corrected (subsanación), and the producer's declaration.
 */
export function registerVerifactuRoutes(app: FastifyInstance, ctx: AppContext): void {
  const invoice = documentType(RECORDED_TYPE);

  ctx.customResources.add('anularFacturaCliente');
  addResourceRoute(app, {
    resource: 'anularFacturaCliente',
    urls: ['/api/3/anularFacturaCliente', '/api/3/anularFacturaCliente/:id'],
    shape: { doc: invoice.header, registro: registroVerifactuModel },
    methods: {
      POST: {
        handler: async (request) => {
          return cancelInvoice(ctx, specifiedRecord(request));
        },
      },
    },
  });

  const names = [registroVerifactuModel.resource, registroVerifactuModel.alias];
  addResourceRoute(app, {
    resource: registroVerifactuModel.resource,
    urls: names.map((name) => `/api/3/${name}/:id/xml`),
    methods: {
      GET: {
        handler: async (request, reply) => {
          const record = await ctx.store.get(registroVerifactuModel, parseId(registroVerifactuModel, request), undefined, 'all');
          if (!record) throw new AppError('record-not-found');
          // The taxpayer as its invoice's alta named it, so that the message is the same every time it is asked for.
          const alta = record.tipo === 'alta' ? record : (await recordsOfInvoice(ctx.database.kysely, Number(record.idfactura))).find((row) => row.tipo === 'alta');
          const xml = suministroXml(
            { NombreRazon: String((alta?.registro as XmlTree | undefined)?.NombreRazonEmisor ?? ''), NIF: String(record.nifemisor) },
            [{ tipo: record.tipo as 'alta' | 'anulacion', content: record.registro as XmlTree, signed: record.firmado ? String(record.firmado) : undefined }],
          );
          reply.type('application/xml; charset=utf-8');
          return xml;
        },
      },
    },
  });

  /** `?idempresa=N` of a company that exists. */
  const companyParam = async (query: unknown): Promise<number> => {
    const raw = (query as Record<string, unknown>).idempresa;
    const coerced = raw === undefined ? undefined : coerceValue({ type: 'integer', nullable: false, min: 1 }, raw, 'json');
    if (!coerced) throw validationError({ idempresa: 'required' });
    if (!coerced.ok) throw validationError({ idempresa: coerced.reason });
    if (!(await companyOf(ctx.database.kysely, Number(coerced.value)))) throw new AppError('record-not-found');
    return Number(coerced.value);
  };

  ctx.customResources.add('verifactuCadena');
  addResourceRoute(app, {
    resource: 'verifactuCadena',
    urls: ['/api/3/verifactuCadena'],
    methods: { GET: { handler: async (request) => scanCompany(ctx, await companyParam(request.query)) } },
  });

  ctx.customResources.add('verifactuExportar');
  addResourceRoute(app, {
    resource: 'verifactuExportar',
    urls: ['/api/3/verifactuExportar'],
    methods: {
      GET: {
        handler: async (request, reply) => {
          const idempresa = await companyParam(request.query);
          const query = request.query as Record<string, unknown>;
          const fields: Record<string, string> = {};
          const { desde, hasta } = periodInput(query, fields);
          const what = query.tipo ?? 'registros';
          if (what !== 'registros' && what !== 'eventos') fields.tipo = 'invalid-value';
          if (Object.keys(fields).length) throw validationError(fields);
          const db = ctx.database.kysely;
          const period = await periodOf(db, what === 'eventos' ? 'verifactu_eventos' : 'registros_verifactu', idempresa, desde, hasta);
          // Written a page at a time: a year of records is more than is worth holding in memory. The
          // export's own event (NO VERI*FACTU) is logged once the last page has gone.
          async function* pages(): AsyncGenerator<string> {
            if (what === 'eventos') {
              let first: Record<string, unknown> | undefined;
              let last: Record<string, unknown> | undefined;
              yield* exportEvents(ctx, idempresa, desde, hasta, period, (event) => {
                first ??= event;
                last = event;
              });
              await logEventExport(ctx, idempresa, desde, hasta, first, last, period.count);
            } else {
              const totals = new RecordTotals();
              yield* exportRecords(ctx, idempresa, desde, hasta, period, (record) => totals.add(record));
              await logRecordExport(ctx, idempresa, desde, hasta, totals);
            }
          }
          reply.type('application/xml; charset=utf-8').header('x-total-count', String(period.count))
            .header('content-disposition', `attachment; filename="verifactu-${what}-${idempresa}-${desde}-${hasta}.xml"`);
          return reply.send(Readable.from(pages()));
        },
      },
    },
  });

  ctx.customResources.add('verifactuEstado');
  addResourceRoute(app, {
    resource: 'verifactuEstado',
    urls: ['/api/3/verifactuEstado'],
    methods: { GET: { handler: async (request) => sendStatus(ctx.database.kysely, await companyParam(request.query)) } },
  });

  ctx.customResources.add('verifactuRequerimiento');
  addResourceRoute(app, {
    resource: 'verifactuRequerimiento',
    urls: ['/api/3/verifactuRequerimiento'],
    shape: requerimientoModel,
    methods: {
      POST: {
        handler: async (request, reply) => {
          const created = await registerRequest(ctx, request.body);
          reply.code(201);
          return created;
        },
      },
    },
  });

  ctx.customResources.add('subsanarRegistroVerifactu');
  addResourceRoute(app, {
    resource: 'subsanarRegistroVerifactu',
    urls: ['/api/3/subsanarRegistroVerifactu', '/api/3/subsanarRegistroVerifactu/:id'],
    shape: registroVerifactuModel,
    methods: {
      POST: {
        handler: async (request, reply) => {
          specifiedRecord(request);
          const record = await correctRecord(ctx, Number(parseId(registroVerifactuModel, request)), request.body);
          reply.code(201);
          return record;
        },
      },
    },
  });

  ctx.customResources.add('verifactuDeclaracion');
  addResourceRoute(app, {
    resource: 'verifactuDeclaracion',
    urls: ['/api/3/verifactuDeclaracion'],
    methods: { GET: { handler: async () => ({ ...declaration(), texto: declarationMarkdown() }) } },
  });
}
