import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { isLegacy } from './profile.ts';
import { addResourceRoute } from './resource-route.ts';

/**
 * `GET /api/3/`: every model resource and every custom endpoint name, sorted (byte order, as the
 * established system sorts). Models appear under their canonical names; for `facturascripts`
 * keys under the established system's plural names, the ones its clients look for.
 */
export function registerRootRoute(app: FastifyInstance, ctx: AppContext): void {
  const listings = new Map<string, { resources: string[] }>();
  const listing = (legacy: boolean) => {
    const key = legacy ? 'facturascripts' : 'spec';
    let found = listings.get(key);
    if (!found) {
      const models = ctx.registry.resources().map((model) => (legacy ? model.alias : model.resource));
      found = { resources: [...new Set([...models, ...ctx.customResources])].sort() };
      listings.set(key, found);
    }
    return found;
  };
  addResourceRoute(app, {
    resource: '',
    urls: ['/api/3'],
    methods: {
      GET: {
        handler: async (request) => {
          const { resources } = listing(isLegacy(request));
          if (!ctx.availability.size) return { resources };
          const shown = await Promise.all(resources.map(async (name) => !ctx.availability.has(name) || (await ctx.availability.get(name)!())));
          return { resources: resources.filter((_, index) => shown[index]) };
        },
      },
    },
  });
}
