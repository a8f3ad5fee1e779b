import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { addResourceRoute, specifiedRecord, type Handler } from '../../http/resource-route.ts';
import { DOCUMENT_TYPES } from '../documents/index.ts';
import { exportDocument } from './export-document.ts';
import { readExportRequest } from './export-request.ts';

/**
 * `GET /api/3/exportar<Doc>/{code}` for the eight documents (facturascripts-api.md 6): each a
 * resource of its own for access rules, listed at the root. `{code}` is the id or the `codigo`;
 * without it, 400 `record-not-specified`; other methods 405.
 */
export function registerExportRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const type of DOCUMENT_TYPES) {
    const resource = `exportar${type.name}`;
    ctx.customResources.add(resource);
    const handler: Handler = async (request, reply) => {
      const file = await exportDocument(ctx, type, specifiedRecord(request, 'code'), readExportRequest(request.query as Record<string, unknown>));
      return reply.header('Content-Type', file.contentType).header('Content-Disposition', file.disposition).send(file.body);
    };
    addResourceRoute(app, { resource, urls: [`/api/3/${resource}`, `/api/3/${resource}/:code`], methods: { GET: { handler } } });
  }
}
