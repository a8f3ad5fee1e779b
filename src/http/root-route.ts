import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { addResourceRoute } from './resource-route.ts';

/** `GET /api/3/`: every canonical model resource name and every custom endpoint name, sorted. */
export function registerRootRoute(app: FastifyInstance, ctx: AppContext): void {
  let cached: { resources: string[] } | undefined;
  addResourceRoute(app, {
    resource: '',
    urls: ['/api/3'],
    methods: {
      GET: {
        handler: async () => {
          cached ??= {
            resources: [...new Set([...ctx.registry.resources().map((m) => m.resource), ...ctx.customResources])].sort(),
          };
          return cached;
        },
      },
    },
  });
}
