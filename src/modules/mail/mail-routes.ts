import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { bodyOf } from '../../http/body.ts';
import { addResourceRoute, type Handler } from '../../http/resource-route.ts';
import { DOCUMENT_TYPES } from '../documents/index.ts';
import { emailSentModel } from './mail-models.ts';
import { readSendRequest } from './mail-request.ts';
import { sendDocument } from './send-document.ts';
import { sendTestMessage } from './test-message.ts';

/**
 * `POST /api/3/enviar<Doc>/{code or id}` for the eight documents (202 with the queued `emailsent`
 * record) and `POST /api/3/probarEmail`; each a resource of its own for access rules (docs/email.md).
 */
export function registerMailRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const type of DOCUMENT_TYPES) {
    const resource = `enviar${type.name}`;
    ctx.customResources.add(resource);
    const handler: Handler = async (request, reply) => {
      const { code } = request.params as { code?: string };
      if (code === undefined || code === '') throw new AppError('record-not-specified');
      const record = await sendDocument(ctx, type, code, readSendRequest(bodyOf(request).body, type.invoice), null);
      return reply.code(202).send(record);
    };
    addResourceRoute(app, { resource, urls: [`/api/3/${resource}`, `/api/3/${resource}/:code`], shape: emailSentModel, methods: { POST: { handler } } });
  }
  ctx.customResources.add('probarEmail');
  const probe: Handler = async (request) => sendTestMessage(ctx, bodyOf(request).body);
  addResourceRoute(app, { resource: 'probarEmail', urls: ['/api/3/probarEmail'], methods: { POST: { handler: probe } } });
}
