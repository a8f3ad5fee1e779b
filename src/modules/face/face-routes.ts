import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { addResourceRoute, specifiedRecord } from '../../http/resource-route.ts';
import { registroFaceModel } from './face-models.ts';
import { cancelAtFace } from './face-states.ts';
import { sendToFace } from './send-invoice.ts';

/** `enviarFACe/{idfactura}` and `anularFACe/{idfactura}`, each a resource of its own for access rules. */
export function registerFaceRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('enviarFACe');
  addResourceRoute(app, {
    resource: 'enviarFACe',
    urls: ['/api/3/enviarFACe', '/api/3/enviarFACe/:id'],
    shape: registroFaceModel,
    methods: {
      POST: {
        handler: async (request, reply) => {
          const record = await sendToFace(ctx, specifiedRecord(request));
          reply.code(201);
          return record;
        },
      },
    },
  });
  ctx.customResources.add('anularFACe');
  addResourceRoute(app, {
    resource: 'anularFACe',
    urls: ['/api/3/anularFACe', '/api/3/anularFACe/:id'],
    shape: registroFaceModel,
    methods: { POST: { handler: async (request) => cancelAtFace(ctx, specifiedRecord(request), ((request.body ?? {}) as Record<string, unknown>).motivo) } },
  });
}
