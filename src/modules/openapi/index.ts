import type { Module } from '../../module.ts';
import { addResourceRoute } from '../../http/resource-route.ts';
import { openApiDocument } from './openapi-document.ts';
import { PACKAGE_VERSION } from '../../version.ts';

export { openApiDocument } from './openapi-document.ts';

/** The API's version in the description: the package's. */
export const API_VERSION = PACKAGE_VERSION;

/** The resource name of the description (access rules, root listing). */
export const OPENAPI_RESOURCE = 'openapi';

/**
 * `GET /api/3/openapi`: the OpenAPI 3.1 description of what this installation serves now
 * (openapi-document.ts), behind a key like every API request. docs/openapi.md.
 */
export function openapiModule(): Module {
  return {
    name: 'openapi',
    register(server, ctx) {
      ctx.customResources.add(OPENAPI_RESOURCE);
      addResourceRoute(server, {
        resource: OPENAPI_RESOURCE,
        urls: [`/api/3/${OPENAPI_RESOURCE}`],
        methods: { GET: { handler: async () => openApiDocument(ctx, API_VERSION) } },
      });
    },
  };
}
