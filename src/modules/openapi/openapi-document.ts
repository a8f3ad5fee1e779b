import type { AppContext, RouteRecord } from '../../app-context.ts';
import { ERROR_CATALOGUE } from '../../errors.ts';
import type { Model } from '../../models/define-model.ts';
import { settingsSchema } from '../settings/index.ts';
import { inputSchema, recordSchema } from './model-schemas.ts';

/** The description's own version: bumped when the document's shape (not the API) changes. */
const TITLE = 'Invoicing API';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const json = (schema: unknown) => ({ 'application/json': { schema } });

/** Codes by error body shape, from the one error vocabulary (src/errors.ts). */
function errorSchemas(): Record<string, unknown> {
  const codes = (shape: string) => Object.entries(ERROR_CATALOGUE).filter(([, entry]) => entry.shape === shape).map(([code]) => code).sort();
  return {
    AuthError: {
      type: 'object',
      description: 'Authentication, version and permission errors (401, 403, 429, 400 api-version-invalid).',
      required: ['error'],
      properties: { error: { type: 'string', enum: codes('error') } },
    },
    Error: {
      type: 'object',
      description: 'Every other error; some carry more members (`fields` and `accepted` of a validation error, `allow`, `missing` ...): docs/errors.md.',
      required: ['status', 'message'],
      properties: {
        status: { const: 'error' },
        message: { type: 'string', enum: codes('message') },
        fields: { type: 'object', additionalProperties: { type: 'string' } },
        accepted: { type: 'object', description: 'Field -> the values it takes, for a field refused as `invalid-value`.', additionalProperties: { type: 'array', items: { type: 'string' } } },
      },
    },
  };
}

const ERRORS: Record<string, { description: string; schema: string }> = {
  400: { description: 'Bad request: invalid parameters or version', schema: 'Error' },
  401: { description: 'Missing or invalid key', schema: 'AuthError' },
  403: { description: 'Not allowed for this key, or the API is switched off', schema: 'AuthError' },
  404: { description: 'No such resource or record', schema: 'Error' },
  405: { description: 'Method not allowed (see Allow)', schema: 'Error' },
  422: { description: 'Validation failed', schema: 'Error' },
  429: { description: 'Address banned after failed authentications (see Retry-After)', schema: 'AuthError' },
  503: { description: 'Database busy or unavailable (see Retry-After)', schema: 'Error' },
};

function errorResponses(codes: number[]): Record<string, unknown> {
  return Object.fromEntries(codes.map((code) => [String(code), { $ref: `#/components/responses/E${code}` }]));
}

/** Fastify's `/api/3/cliente/:id` and `/MyFiles/*` as OpenAPI paths, with their parameters. */
function pathOf(url: string): { path: string; parameters: Array<Record<string, unknown>> } {
  const parameters: Array<Record<string, unknown>> = [];
  const path = url.split('/').map((segment) => {
    if (segment.startsWith(':')) {
      parameters.push({ name: segment.slice(1), in: 'path', required: true, schema: { type: 'string' } });
      return `{${segment.slice(1)}}`;
    }
    if (segment === '*') {
      parameters.push({ name: 'path', in: 'path', required: true, schema: { type: 'string' }, description: 'The rest of the path.' });
      return '{path}';
    }
    return segment;
  }).join('/');
  return { path, parameters };
}

const LIST_PARAMETERS = [
  { name: 'filter', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: { type: 'string' } }, description: '`filter[field]=value`, `filter[field_gt]` ... (docs/query-syntax.md); only the model\'s visible fields' },
  { name: 'operation', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: { enum: ['and', 'or'] } } },
  { name: 'sort', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: { enum: ['ASC', 'DESC', 'asc', 'desc'] } } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, default: 50 } },
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'The next page after a full one, from its `Link: <...>; rel="next"` (keyset paging; not with `offset`)' },
  { name: 'fields', in: 'query', schema: { type: 'string' }, description: 'Only these visible fields (comma separated; the primary key always comes); 400 `invalid-field` for any other (docs/query-syntax.md)' },
  { name: 'expand', in: 'query', schema: { type: 'string' }, description: 'Documents only: `lineas`, `cliente` or `proveedor` embedded (comma separated), one read per page each; 400 `invalid-expand`, 403 for a resource the key may not read' },
];
/** The parameters a read of one record takes too. */
const ONE_PARAMETERS = ['fields', 'expand'];

/** One operation of a model's generic resource. */
function modelOperation(model: Model, method: string, one: boolean): Record<string, unknown> {
  const name = model.resource;
  if (method === 'GET' && !one) {
    return {
      summary: `List ${name}`,
      parameters: LIST_PARAMETERS.map((parameter) => ({ $ref: `#/components/parameters/${parameter.name}` })),
      responses: {
        200: { description: 'One page of records', headers: { 'X-Total-Count': { $ref: '#/components/headers/X-Total-Count' }, Link: { $ref: '#/components/headers/Link' } }, content: json({ type: 'array', items: ref(name) }) },
        ...errorResponses([400, 401, 403, 404]),
      },
    };
  }
  if (method === 'GET') {
    return {
      summary: `Get one ${name}`, parameters: ONE_PARAMETERS.map((parameter) => ({ $ref: `#/components/parameters/${parameter}` })),
      responses: { 200: { description: 'The record', content: json(ref(name)) }, ...errorResponses([400, 401, 403, 404]) },
    };
  }
  if (method === 'POST') {
    return {
      summary: `Create a ${name}`,
      requestBody: { required: true, content: { ...json(ref(`${name}.input`)), 'application/x-www-form-urlencoded': { schema: ref(`${name}.input`) } } },
      responses: { 201: { description: 'The record created', content: json(ref(name)) }, ...errorResponses([400, 401, 403, 404, 422]) },
    };
  }
  if (method === 'PUT' || method === 'PATCH') {
    return {
      summary: `Update a ${name}`,
      requestBody: { required: true, content: json({ ...ref(`${name}.input`) }) },
      responses: { 200: { description: 'The record updated', content: json(ref(name)) }, ...errorResponses([400, 401, 403, 404, 422]) },
    };
  }
  return {
    summary: `Delete a ${name}`,
    responses: { 200: { description: 'The record deleted', content: json({ type: 'object', properties: { ok: { const: 'record-deleted' }, data: ref(name) } }) }, ...errorResponses([401, 403, 404, 422]) },
  };
}

/** A custom endpoint: its own response schema when it declares one, and what its route's `openapi` says of it. */
function customOperation(route: RouteRecord): Record<string, unknown> {
  const doc = route.config.openapi ?? {};
  const declared = doc.response ?? (route.schema?.response as Record<string, unknown> | undefined)?.[200];
  const open = route.config.public || route.config.operational;
  return {
    summary: doc.summary ?? `${route.method} ${route.url}`,
    ...(doc.description ? { description: doc.description } : {}),
    ...(['POST', 'PUT', 'PATCH'].includes(route.method) ? { requestBody: { content: json(doc.body ?? { type: 'object' }) } } : {}),
    responses: { [doc.status ?? 200]: { description: 'Success', content: json(declared ?? {}) }, ...errorResponses(open ? [404] : [400, 401, 403, 404, 422]) },
    ...(open ? { security: [] } : {}),
  };
}

/**
 * The OpenAPI 3.1 description of what this installation serves now: every model resource from the
 * registry (records and inputs from its fields), every custom endpoint from the routes as
 * registered, the key scheme, the error shapes and `X-Total-Count`. Resources switched off (a
 * disabled plugin's) are left out. Never written by hand: `npm run openapi` writes it to
 * docs/openapi.json.
 */
export async function openApiDocument(ctx: AppContext, version: string): Promise<Record<string, unknown>> {
  const available = new Map<string, boolean>();
  for (const [resource, check] of ctx.availability) available.set(resource, await check());
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = errorSchemas();
  const tags = new Set<string>();
  const aliases = new Map<string, string>();
  for (const route of ctx.routes) {
    const resource = route.config.resource;
    if (resource && available.get(resource) === false) continue;
    // The API's paths, the operational ones, and the MCP endpoint (behind the same keys, at /mcp).
    if (!route.url.startsWith('/api/3') && route.url !== '/mcp' && !route.config.public && !route.config.operational) continue;
    const model = (route.config.family === 'model' || route.url.endsWith('/schema')) && resource ? ctx.registry.get(resource) : undefined;
    if (model && model.alias !== model.resource && route.url.split('/')[3] === model.alias) {
      // The plural alias serves the same operations: described once, referenced from both paths.
      aliases.set(pathOf(route.url).path, pathOf(route.url.replace(`/api/3/${model.alias}`, `/api/3/${model.resource}`)).path);
      continue;
    }
    const { path, parameters } = pathOf(route.url);
    const operation = model && !route.url.endsWith('/schema') ? modelOperation(model, route.method, route.url.endsWith('/:id')) : customOperation(route);
    if (model) {
      schemas[model.resource] = recordSchema(model);
      schemas[`${model.resource}.input`] = inputSchema(model);
    }
    const tag = resource || (route.config.operational ? 'operations' : 'root');
    tags.add(tag);
    paths[path] ??= {};
    // Every write of the API takes an Idempotency-Key (docs/writes.md).
    const idempotent = WRITE_METHODS.has(route.method) && Boolean(route.config.resource) && !route.config.public ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : [];
    // One record's version (docs/writes.md): its GET answers an ETag, its writes take If-Match.
    const oneRecord = route.url.endsWith('/:id') && (route.config.family === 'model' || /^(editar|pagar)/.test(String(route.config.resource ?? '')));
    const conditional = !oneRecord ? [] : route.method === 'GET' ? [{ $ref: '#/components/parameters/IfNoneMatch' }] : WRITE_METHODS.has(route.method) ? [{ $ref: '#/components/parameters/IfMatch' }] : [];
    const all = [...parameters, ...((operation.parameters as unknown[]) ?? []), ...idempotent, ...conditional];
    paths[path][route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase())}`,
      tags: [tag],
      ...operation,
      ...(all.length ? { parameters: all } : {}),
    };
  }
  const pathItems: Record<string, unknown> = {};
  for (const [alias, canonical] of aliases) {
    const name = canonical.slice('/api/3/'.length).replace(/[{}]/g, '').replace(/\//g, '.');
    if (paths[canonical] && !('$ref' in paths[canonical])) pathItems[name] = paths[canonical];
    paths[canonical] = paths[alias] = { $ref: `#/components/pathItems/${name}` };
  }
  const sorted = <T>(entries: Record<string, T>) => Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const sortedPaths = sorted(paths);
  return {
    openapi: '3.1.0',
    info: { title: TITLE, version, description: 'A JSON REST API over an invoicing installation. Generated from the model registry and the routes (docs/openapi.md).' },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths: sortedPaths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Auth-Token', description: 'An API key (`Token` is accepted too).' } },
      parameters: {
        ...Object.fromEntries(LIST_PARAMETERS.map((parameter) => [parameter.name, parameter])),
        IdempotencyKey: {
          name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
          description: 'Makes a retry safe: the same key and request replay the first answer (`Idempotent-Replayed: true`) and write nothing; 422 `idempotency-key-reused` for another request, 409 `idempotency-key-in-use` while the first runs (docs/writes.md).',
        },
        IfMatch: {
          name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
          description: 'The record\'s ETag as last read: 412 `precondition-failed` (with the current ETag) when it changed since, nothing written (docs/writes.md).',
        },
        IfNoneMatch: {
          name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' },
          description: 'An ETag of the record: 304 without a body while it is still current.',
        },
      },
      headers: {
        'X-Total-Count': { description: 'Records matching the filters, whatever `limit` and `offset`.', schema: { type: 'integer', minimum: 0 } },
        Link: { description: 'On a full page: `<url>; rel="next"`, the next page (by `cursor`, or by `offset` for sorts on nullable fields).', schema: { type: 'string' } },
      },
      responses: Object.fromEntries(Object.entries(ERRORS).map(([code, { description, schema }]) => [`E${code}`, { description, content: json(ref(schema)) }])),
      pathItems: sorted(pathItems),
      schemas: sorted({ ...schemas, 'settings.default': settingsSchema() }),
    },
  };
}
