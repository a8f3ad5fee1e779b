import fs from 'node:fs';
import type { Module } from '../../module.ts';
import { addResourceRoute } from '../../http/resource-route.ts';
import { openApiDocument } from './openapi-document.ts';

export { openApiDocument } from './openapi-document.ts';

/** The package's version: the API's version in the description. */
export const API_VERSION = String((JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version);

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
