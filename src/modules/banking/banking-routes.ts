import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { bodyOf } from '../../http/body.ts';
import { parseId } from '../../http/model-routes.ts';
import { addResourceRoute, type Handler, type OperationDoc } from '../../http/resource-route.ts';
import type { Model } from '../../models/define-model.ts';
import { textOf } from '../../models/record-rules.ts';
import { companyOf } from '../company/index.ts';
import { cuentaBancoModel } from '../finance/index.ts';
import { customerReceiptModel } from '../payments/index.ts';
import { pain001, type Pain001Version } from './pain001.ts';
import { pain008 } from './pain008.ts';
import { remittanceModel, remittanceReceiptModel } from './remittance-models.ts';
import { batchRows } from './sepa-batch.ts';
import { importStatement } from './import-statement.ts';
import { reconcileMovement } from './reconcile.ts';
import { collectRemittance, payTransfer, returnReceipt } from './settle-batch.ts';
import { bankMovementModel } from './statement-models.ts';
import { transferModel, transferPaymentModel } from './transfer-models.ts';

type Row = Record<string, unknown>;
type Company = { name: string; iban: string; bic: string | null };

/** A batch's file: `GET /api/3/<batch>/{id}/xml`, written from what the batch fixed when it was made. */
function fileRoute(app: FastifyInstance, ctx: AppContext, model: Model, rows: Model, summary: string, write: (batch: Row, rows: Row[], company: Company, createdAt: string) => { file: string; name: string }): void {
  const handler: Handler = async (request, reply) => {
    const batch = await ctx.store.get(model, parseId(model, request));
    if (!batch) throw new AppError('record-not-found');
    const db = ctx.database.kysely;
    const [account, company, payments] = await Promise.all([
      ctx.store.get(cuentaBancoModel, textOf(batch.codcuenta), db, 'all'),
      companyOf(db, Number(batch.idempresa)),
      batchRows(db, rows, model.primaryKey, Number(batch[model.primaryKey])),
    ]);
    const { file, name } = write(batch, payments, {
      name: textOf(company?.nombre), iban: textOf(account?.iban), bic: account?.swift ? textOf(account.swift).replace(/\s+/g, '').toUpperCase() : null,
    }, new Date(ctx.clock.now()).toISOString().slice(0, 19));
    return reply.header('Content-Type', 'application/xml; charset=utf-8').header('Content-Disposition', `attachment; filename="${name}"`).send(file);
  };
  const openapi: OperationDoc = { summary, response: { type: 'string', contentMediaType: 'application/xml' } };
  addResourceRoute(app, { resource: model.resource, urls: [`/api/3/${model.resource}/:id/xml`, `/api/3/${model.alias}/:id/xml`], methods: { GET: { handler, openapi } } });
}

/** A banking operation on one record of `target` (its key in the path): `POST /api/3/<name>/{id}`; `shape` the records it answers. */
function operationRoute(app: FastifyInstance, ctx: AppContext, name: string, target: Model, run: (ctx: AppContext, id: number, body: unknown) => Promise<Row>, openapi: OperationDoc, shape?: Model): void {
  ctx.customResources.add(name);
  const handler: Handler = async (request) => run(ctx, Number(parseId(target, request)), bodyOf(request).body);
  addResourceRoute(app, { resource: name, urls: [`/api/3/${name}/:id`], ...(shape ? { shape } : {}), methods: { POST: { handler, openapi } } });
}

const settleBody = { type: 'object', additionalProperties: false, properties: { fecha: { type: 'string', format: 'date' } } } as const;
const settled = (date: string) => ({
  type: 'object', properties: { estado: { type: 'string' }, [date]: { type: 'string', format: 'date' }, pagados: { type: 'array', items: { type: 'integer' } }, yapagados: { type: 'array', items: { type: 'integer' } } },
});

/** The banking module's files and operations (docs/banking.md). */
export function registerBankingRoutes(app: FastifyInstance, ctx: AppContext): void {
  fileRoute(app, ctx, remittanceModel, remittanceReceiptModel, 'The remittance\'s SEPA direct-debit file (pain.008, in the remittance\'s version)', (batch, rows, company, createdAt) => ({
    file: pain008(batch, rows, { ...company, identifier: textOf(batch.identificador) }, createdAt),
    name: `remesa-${batch.idremesa}-pain.008.${batch.version}.xml`,
  }));
  fileRoute(app, ctx, transferModel, transferPaymentModel, 'The transfer order\'s SEPA credit-transfer file (pain.001, in the order\'s version)', (batch, rows, company, createdAt) => ({
    file: pain001({ id: Number(batch.idtransferencia), fechaejecucion: textOf(batch.fechaejecucion), version: textOf(batch.version) as Pain001Version }, rows.map((row) => ({
      importe: Number(row.importe), iban: textOf(row.iban), bic: row.bic ? textOf(row.bic) : null, nombre: textOf(row.nombre) || textOf(row.codproveedor), endtoend: textOf(row.endtoend), concepto: row.concepto ? textOf(row.concepto) : null,
    })), company, createdAt),
    name: `transferencia-${batch.idtransferencia}-pain.001.${batch.version}.xml`,
  }));

  operationRoute(app, ctx, 'cobrarRemesa', remittanceModel, collectRemittance, {
    summary: 'Mark a remittance collected: every receipt standing in it paid on the collection day, with its accounting entry',
    description: '`fecha` (default the remittance\'s `fechacargo`). Answers the remittance with `pagados` (receipts paid now) and `yapagados` (already paid another way, left alone). Collected already: 422 `estado: already-collected`.',
    body: settleBody, response: settled('fechacobro'),
  }, remittanceModel);
  operationRoute(app, ctx, 'pagarTransferenciaSepa', transferModel, payTransfer, {
    summary: 'Mark a transfer order executed: every supplier receipt in it paid on the execution day, with its accounting entry',
    description: '`fecha` (default the order\'s `fechaejecucion`). Answers the order with `pagados` and `yapagados`. Paid already: 422 `estado: already-paid`.',
    body: settleBody, response: settled('fechapago'),
  }, transferModel);
  operationRoute(app, ctx, 'devolverReciboRemesa', customerReceiptModel, returnReceipt, {
    summary: 'A collected receipt returned by the bank: un-paid on the return day, the bank\'s fee posted as an expense',
    description: 'The id is the customer receipt\'s (`idrecibo`). `fecha` (default today), `gastos` (the bank\'s fee, default 0), `motivo` (e.g. the SEPA reason code). The receipt no longer stands in the remittance and may be presented again. 422 `idrecibo`: `not-in-remittance`, `remittance-not-collected`, `already-returned`, `not-paid`.',
    body: { type: 'object', additionalProperties: false, properties: { fecha: { type: 'string', format: 'date' }, gastos: { type: 'number', minimum: 0 }, motivo: { type: 'string', maxLength: 100 } } },
    response: { type: 'object', properties: { idremesa: { type: 'integer' }, idrecibo: { type: 'integer' }, fechadevolucion: { type: 'string', format: 'date' }, gastosdevolucion: { type: 'number' }, recibo: { type: 'object' } } },
  });

  ctx.customResources.add('importarExtractoBancario');
  const movementProps = { idmovimiento: { type: 'integer' }, codcuenta: { type: 'string' }, fecha: { type: 'string', format: 'date' }, fechavalor: { type: 'string', format: 'date' }, importe: { type: 'number' }, concepto: { type: 'string' }, texto: { type: 'string' }, propuestas: { type: 'array', items: { type: 'object' } }, conciliado: { type: 'boolean' } };
  addResourceRoute(app, {
    resource: 'importarExtractoBancario', urls: ['/api/3/importarExtractoBancario'],
    methods: {
      POST: {
        handler: async (request) => importStatement(ctx, bodyOf(request).body),
        openapi: {
          summary: 'Import a bank statement (AEB Norma 43 or ISO 20022 camt.053): its movements stored once, with what each could pay',
          description: 'Multipart `file` or JSON `contenido` (the file\'s text). The company bank account is found by the file\'s account (Norma 43: its IBAN rebuilt from bank, branch and account). A file that does not read, whose movements do not add up to its account trailer (counts, totals, balances), or that names another account is refused whole: 422 naming the member, with `linea` and `cuenta`. Movements already imported (same identity) are not stored again.',
          body: { type: 'object', properties: { contenido: { type: 'string' } } },
          response: { type: 'object', properties: { formato: { type: 'string', enum: ['norma43', 'camt053'] }, movimientos: { type: 'array', items: { type: 'object', properties: movementProps } }, nuevos: { type: 'integer' }, repetidos: { type: 'integer' } } },
        },
      },
    },
  });
  operationRoute(app, ctx, 'conciliarMovimiento', bankMovementModel, reconcileMovement, {
    summary: 'Reconcile a bank movement: pay what it paid (its best proposal, or the receipts named) on its value day',
    description: 'No body: the best proposal, computed again now (a remittance or transfer order settled whole, receipts paid, or a returned direct debit un-paid). `{idrecibos: [...]}`: those receipts (customer\'s for money in, supplier\'s for money out), unpaid and summing exactly to the amount. 422: `estado: already-reconciled`, `propuestas: none`, `idrecibos: not-found | already-paid | other-company | amount-mismatch`.',
    body: { type: 'object', additionalProperties: false, properties: { idrecibos: { type: 'array', items: { type: 'integer' } } } },
    response: { type: 'object', properties: { ...movementProps, idrecibo: { type: 'integer' }, idremesa: { type: 'integer' }, idtransferencia: { type: 'integer' }, recibos: { type: 'array', items: { type: 'integer' } } } },
  }, bankMovementModel);
}
