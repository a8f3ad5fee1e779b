import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { bodyOf } from '../../http/body.ts';
import { addResourceRoute, specifiedRecord, type Handler, type OperationDoc } from '../../http/resource-route.ts';
import { DOCUMENT_TYPES } from '../documents/index.ts';
import { emailSentModel } from './mail-models.ts';
import { readSendRequest } from './mail-request.ts';
import { sendDocument } from './send-document.ts';
import { sendTestMessage } from './test-message.ts';

const addresses = { oneOf: [{ type: 'string', description: 'Comma- or semicolon-separated' }, { type: 'array', items: { type: 'string' }, maxItems: 50 }] };

/** The body of `enviar<Doc>` (mail-request.ts), as OpenAPI shows it. */
const SEND_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    to: { ...addresses, description: 'Default: the customer\'s or supplier\'s e-mail (422 `no-recipient` without one). `Name <address>` or `address`.' },
    cc: addresses,
    bcc: addresses,
    subject: { type: 'string', maxLength: 300, description: 'Default: the template\'s, filled with the document\'s fields.' },
    body: { type: 'string', maxLength: 100000, description: 'Plain text; the HTML part is made from it. Default: the template\'s.' },
    lang: { type: 'string', description: 'es, en, ca, fr, de, it, pt (default: the customer\'s, else the installation\'s).' },
    attach: { oneOf: [{ type: 'string' }, { type: 'array', items: { enum: ['PDF', 'CSV', 'XLSX', 'UBL', 'CII', 'FACTURAE'] } }], description: 'Export types to attach; default ["PDF"]; [] for none. E-invoices for invoices only.' },
    attachfiles: { oneOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'integer' } }], description: 'true: every file linked to the document; or the ids of some.' },
    firmada: { oneOf: [{ type: 'boolean' }, { type: 'string' }, { type: 'integer' }], description: 'true: the attached Facturae signed (XAdES, .xsig) with the company\'s certificate.' },
  },
};

/**
 * `POST /api/3/enviar<Doc>/{code or id}` for the eight documents (202 with the queued `emailsent`
 * record) and `POST /api/3/probarEmail`; each a resource of its own for access rules (docs/email.md).
 */
export function registerMailRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const type of DOCUMENT_TYPES) {
    const resource = `enviar${type.name}`;
    ctx.customResources.add(resource);
    const handler: Handler = async (request, reply) => {
      const record = await sendDocument(ctx, type, specifiedRecord(request, 'code'), readSendRequest(bodyOf(request).body, type.invoice), null);
      return reply.code(202).send(record);
    };
    const openapi: OperationDoc = {
      summary: `Send a ${type.name} by e-mail`,
      description: 'Writes the message to the outbox and answers 202 with its `emailsent` record (`estado` pendiente); the sender job sends it (docs/email.md).',
      body: SEND_BODY, status: 202, response: { $ref: `#/components/schemas/${emailSentModel.resource}` },
    };
    addResourceRoute(app, { resource, urls: [`/api/3/${resource}`, `/api/3/${resource}/:code`], shape: emailSentModel, methods: { POST: { handler, openapi } } });
  }
  ctx.customResources.add('probarEmail');
  const probe: Handler = async (request) => sendTestMessage(ctx, bodyOf(request).body);
  const openapi: OperationDoc = {
    summary: 'Send a test message with the e-mail settings',
    description: 'Sends now and answers the server\'s words; 502 `mail-server-error` when it refuses or cannot be reached.',
    body: { type: 'object', additionalProperties: false, properties: { to: { type: 'string', description: 'Default: the sender' }, idempresa: { type: 'integer' } } },
    response: { type: 'object', properties: { sent: { const: true }, to: { type: 'string' }, response: { type: 'string' }, messageid: { type: 'string' }, server: { type: 'string' }, security: { enum: ['none', 'starttls', 'tls'] } } },
  };
  addResourceRoute(app, { resource: 'probarEmail', urls: ['/api/3/probarEmail'], methods: { POST: { handler: probe, openapi } } });
}
