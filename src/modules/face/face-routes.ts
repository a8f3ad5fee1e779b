import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { addResourceRoute } from '../../http/resource-route.ts';
import { registroFaceModel } from './face-models.ts';
import { cancelAtFace } from './face-states.ts';
import { sendToFace } from './send-invoice.ts';

/** `enviarFACe/{idfactura}` and `anularFACe/{idfactura}`, each a resource of its own for access rules. */
export function registerFaceRoutes(app: FastifyInstance, ctx: AppContext): void {
  const idOf = (request: { params: unknown }) => {
    const id = (request.params as { id?: string }).id;
    if (!id) throw new AppError('record-not-specified');
    return id;
  };
  ctx.customResources.add('enviarFACe');
  addResourceRoute(app, {
    resource: 'enviarFACe',
    urls: ['/api/3/enviarFACe', '/api/3/enviarFACe/:id'],
    shape: registroFaceModel,
    methods: {
      POST: {
        handler: async (request, reply) => {
          const record = await sendToFace(ctx, idOf(request));
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
    methods: { POST: { handler: async (request) => cancelAtFace(ctx, idOf(request), ((request.body ?? {}) as Record<string, unknown>).motivo) } },
  });
}
