import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { bodyOf } from '../../http/body.ts';
import { addResourceRoute, type Handler } from '../../http/resource-route.ts';
import { createDocument } from './create-document.ts';
import { readDocumentInput } from './document-input.ts';
import { DOCUMENT_TYPES } from './document-types.ts';
import { parseId } from '../../http/model-routes.ts';
import { conditionalWrite } from '../../http/conditional.ts';
import { payInvoice, readPaymentRequest } from './pay-invoice.ts';
import { editDocument } from './change-document.ts';
import { readRefundRequest, refundInvoice } from './refund-invoice.ts';

/**
 * The document endpoints of the reference (facturascripts-api.md 3-7): `crear<Doc>` for the eight
 * documents, `editar<Doc>/{id}`, `pagarFactura<Cliente|Proveedor>/{id}` and
 * `crearFacturaRectificativaCliente`. Each name is a resource of its own for access rules and is listed at the API root.
 */
export function registerDocumentRoutes(app: FastifyInstance, ctx: AppContext): void {
  const refund: Handler = async (request) => {
    const { body, source } = bodyOf(request);
    return refundInvoice(ctx, readRefundRequest(body, source));
  };
  ctx.customResources.add('crearFacturaRectificativaCliente');
  const invoice = DOCUMENT_TYPES.find((type) => type.name === 'FacturaCliente')!;
  addResourceRoute(app, {
    resource: 'crearFacturaRectificativaCliente', urls: ['/api/3/crearFacturaRectificativaCliente'], shape: { doc: invoice.header, lines: invoice.line },
    methods: { POST: { handler: refund }, PUT: { handler: refund } },
  });

  for (const type of DOCUMENT_TYPES) {
    const resource = `crear${type.name}`;
    ctx.customResources.add(resource);
    // POST and PUT both create, as in the reference; 200 because its clients check for it.
    const create: Handler = async (request) => {
      const { body, source } = bodyOf(request);
      return createDocument(ctx, type, readDocumentInput(type, body, source, false));
    };
    // The records of each answer, so that a profile can format their dates.
    const shape = { doc: type.header, lines: type.line };
    addResourceRoute(app, { resource, urls: [`/api/3/${resource}`], shape, methods: { POST: { handler: create }, PUT: { handler: create } } });

    const edit = `editar${type.name}`;
    ctx.customResources.add(edit);
    const editHandler: Handler = async (request) => {
      const { body, source } = bodyOf(request);
      const id = parseId(type.header, request);
      return conditionalWrite(ctx.store, request, type.header, id, () => editDocument(ctx, type, id, readDocumentInput(type, body, source, true)));
    };
    addResourceRoute(app, { resource: edit, urls: [`/api/3/${edit}/:id`], shape, methods: { PUT: { handler: editHandler }, PATCH: { handler: editHandler } } });

    if (type.invoice) {
      const pay = `pagar${type.name}`;
      ctx.customResources.add(pay);
      const handler: Handler = async (request) => {
        const { body, source } = bodyOf(request);
        const id = parseId(type.header, request);
        return conditionalWrite(ctx.store, request, type.header, id, () => payInvoice(ctx, type, id, readPaymentRequest(type, body, source)));
      };
      addResourceRoute(app, { resource: pay, urls: [`/api/3/${pay}/:id`], shape: { data: type.header }, methods: { POST: { handler }, PUT: { handler } } });
    }
  }
}
