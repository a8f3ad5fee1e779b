import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError, validationError } from '../../errors.ts';
import { bodyOf } from '../../http/body.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, type OperationDoc } from '../../http/resource-route.ts';
import { carriedInto, settleVat, undoSettlement } from './settle-vat.ts';
import { vatSettlementModel } from './settlement-model.ts';
import { textOf } from '../../models/record-rules.ts';
import { companyOf } from '../company/index.ts';
import { reportCsv, reportPdf, reportXlsx, type ReportTable } from '../export/index.ts';
import { aeat303File, FileRefusal } from './aeat303-file.ts';
import { modelo347, modelo349 } from './annual-forms.ts';
import { fillTaxRowsOnce } from './fill-tax-rows.ts';
import { modelo390 } from './modelo390.ts';
import { BOXES_303, modelo303 } from './modelo303.ts';
import { taxPeriodOf } from './tax-period.ts';

/** The software version the agency's files carry (their `<AUX>` block). */
const AEAT_SOFTWARE_VERSION = '0100';

/** The 303 as a report, through the export module's tables. */
const REPORTS = {
  pdf: { contentType: 'application/pdf', render: reportPdf },
  csv: { contentType: 'text/csv; charset=utf-8', render: reportCsv },
  xlsx: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', render: reportXlsx },
} as const;

/** The tax forms' endpoints (docs/tax-forms.md): each a resource of its own for access rules. */
export function registerTaxFormRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('modelo303');
  const doc: OperationDoc = {
    summary: 'The VAT return (Modelo 303) of a quarter or month, computed from the books',
    description: '`codejercicio` and `periodo` (`1T`-`4T`, or `01`-`12` for monthly filers) required; `idempresa` for a company other than the default. Every box of pages 1 and 3, keyed by the agency\'s box number, amounts to the cent; `avisos` lists what no box takes. `formato=aeat`: the agency\'s presentation file instead (record design DR303, the 2026 design from 2T 2026, ISO-8859-1); `pdf`, `csv`, `xlsx`: the boxes as a report. 422 naming the parameter otherwise.',
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
    methods: {
      GET: {
        handler: async (request, reply) => {
          const query = request.query as Record<string, unknown>;
          const formato = textOf(query.formato).trim().toLowerCase();
          if (formato && !['json', 'aeat', ...Object.keys(REPORTS)].includes(formato)) throw validationError({ formato: 'invalid-value' });
          const { formato: _format, ...rest } = query;
          const period = await taxPeriodOf(ctx, rest);
          await fillTaxRowsOnce(ctx, period.idempresa);
          const form = await modelo303(ctx, period, await carriedInto(ctx.database.kysely, period));
          if (formato in REPORTS) {
            const report = REPORTS[formato as keyof typeof REPORTS];
            const table: ReportTable = {
              title: `Modelo 303 ${period.year} ${period.periodo}`, columns: ['casilla', 'importe'],
              rows: Object.entries(form.casillas).map(([name, value]) => [name, value]), decimals: 2,
            };
            return reply.header('Content-Type', report.contentType)
              .header('Content-Disposition', `attachment; filename="303_${period.year}${period.periodo}.${formato}"`).send(await report.render(table));
          }
          if (formato !== 'aeat') return form;
          const company = await companyOf(ctx.database.kysely, period.idempresa);
          let file: string;
          try {
            file = aeat303File(form, { nif: textOf(company?.cifnif), nombre: textOf(company?.nombre) }, period.year, { version: AEAT_SOFTWARE_VERSION, nif: textOf(company?.cifnif) });
          } catch (error) {
            if (error instanceof FileRefusal) throw new AppError('validation-failed', { fields: { formato: error.reason }, reason: error.message });
            throw error;
          }
          return reply.header('Content-Type', 'text/plain; charset=ISO-8859-1')
            .header('Content-Disposition', `attachment; filename="303_${period.year}${period.periodo}.txt"`).send(Buffer.from(file, 'latin1'));
        },
        openapi: doc,
      },
    },
  });

  ctx.customResources.add('liquidarIVA');
  const settleDoc: OperationDoc = {
    summary: 'Settle a VAT period: its 303, the settlement entry, the result carried forward, the period locked',
    description: '`codejercicio`, `periodo` (`1T`-`4T` or `01`-`12`), `idempresa` (default the installation\'s). One transaction: the 303 with the previous settlement\'s carry-forward (box 110), the entry clearing the VAT accounts against the tax authority\'s (4750 payable, 4700 receivable) on the period\'s last day, the `regularizacionimpuestos` row locking the period (invoices dated in it: 422 `period-locked`), and the result to carry (`acompensar`). 422 `periodo: already-settled`.',
    body: { type: 'object', additionalProperties: false, properties: { codejercicio: { type: 'string' }, periodo: { type: 'string' }, idempresa: { type: 'integer' } }, required: ['codejercicio', 'periodo'] },
    response: { type: 'object', properties: { idliquidacion: { type: 'integer' }, resultado: { type: 'number' }, acompensar: { type: 'number' }, idregiva: { type: 'integer' }, idasiento: { type: 'integer' }, casillas: { type: 'object' } } },
  };
  addResourceRoute(app, { resource: 'liquidarIVA', urls: ['/api/3/liquidarIVA'], methods: { POST: { handler: async (request) => settleVat(ctx, bodyOf(request).body), openapi: settleDoc } } });
  const undoDoc: OperationDoc = {
    summary: 'Undo a VAT settlement: the period unlocked, its entry deleted',
    description: 'Refused (422 `periodo: later-settlement`) while a later period of the company is settled: it carried from this one.',
    response: { type: 'object' },
  };
  addResourceRoute(app, {
    resource: 'liquidarIVA', urls: ['/api/3/liquidarIVA/:id'],
    methods: {
      DELETE: {
        handler: async (request) => {
          return { ok: 'record-deleted', data: await undoSettlement(ctx, Number(parseId(vatSettlementModel, request))) };
        },
        openapi: undoDoc,
      },
    },
  });

  const annual = (name: string, run: (ctx: AppContext, query: Record<string, unknown>) => Promise<Record<string, unknown>>, openapi: OperationDoc) => {
    ctx.customResources.add(name);
    addResourceRoute(app, { resource: name, urls: [`/api/3/${name}`], methods: { GET: { handler: async (request) => run(ctx, request.query as Record<string, unknown>), openapi } } });
  };
  annual('modelo347', modelo347, {
    summary: 'The annual statement of operations with third parties (Modelo 347)',
    description: '`codejercicio` (and `idempresa`). Each customer (key B) and supplier (key A) whose invoices of the year add up to more than 3,005.06 EUR, VAT included, by tax id, with its four quarters. Left out: intra-EU operations, imports, exports, invoices with IRPF, disbursements.',
    response: { type: 'object', properties: { umbral: { type: 'number' }, declarados: { type: 'array', items: { type: 'object', properties: { cifnif: { type: 'string' }, nombre: { type: 'string' }, codpais: { type: 'string' }, clave: { type: 'string' }, importe: { type: 'number' }, trimestres: { type: 'array', items: { type: 'number' } } } } } } },
  });
  annual('modelo349', modelo349, {
    summary: 'The recapitulative statement of intra-EU operations (Modelo 349) of a period',
    description: '`codejercicio`, `periodo` (`1T`-`4T`, `01`-`12`). Per operator and key (E deliveries, S services rendered, A acquisitions of goods, I services acquired), the taxable base in euros.',
    response: { type: 'object', properties: { operaciones: { type: 'array', items: { type: 'object', properties: { cifnif: { type: 'string' }, nombre: { type: 'string' }, codpais: { type: 'string' }, clave: { type: 'string' }, base: { type: 'number' } } } } } },
  });
  annual('modelo390', modelo390, {
    summary: 'The annual VAT summary (Modelo 390): the year\'s 303 boxes summed, with the per-rate detail and the year\'s settlements',
    description: '`codejercicio` (and `idempresa`). Boxes keyed by the 390\'s numbers; `adquisicionesintracomunitarias` by kind and rate; `liquidaciones` the year\'s settled periods.',
    response: { type: 'object', properties: { casillas: { type: 'object' }, adquisicionesintracomunitarias: { type: 'array', items: { type: 'object' } }, liquidaciones: { type: 'array', items: { type: 'object' } } } },
  });
}
