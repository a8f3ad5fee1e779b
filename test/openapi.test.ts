import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { generatedOpenApi, OPENAPI_FILE } from '../scripts/openapi.ts';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * The OpenAPI 3.1 description (src/modules/openapi): valid for an OpenAPI validator, complete
 * (every resource of the root, with bodies, error shapes and X-Total-Count), following what is
 * switched on, and docs/openapi.json never stale.
 */
forEachEngine('OpenAPI description', (t) => {
  const document = async () => {
    const answer = await t().call('GET', '/api/3/openapi');
    assert.equal(answer.status, 200);
    return answer.body;
  };

  it('is a valid OpenAPI 3.1 document, behind a key and its rules', async () => {
    assert.equal((await t().call('GET', '/api/3/openapi', undefined, null)).status, 401);
    const doc = await document();
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 2000));
    assert.equal(validator.version, '3.1');
    const key = (await t().call('POST', '/api/3/apikey', { description: 'No rule for openapi' })).body;
    assert.equal((await t().call('GET', '/api/3/openapi', undefined, key.apikey)).status, 403);
  });

  it('describes every resource of the root, with bodies, errors and X-Total-Count', async () => {
    const doc = await document();
    const paths = Object.keys(doc.paths);
    const { resources } = (await t().call('GET', '/api/3')).body as { resources: string[] };
    // Every one under /api/3, but the MCP endpoint, at /mcp.
    for (const resource of resources) assert.ok(paths.some((path) => path === `/api/3/${resource}` || path.startsWith(`/api/3/${resource}/`) || path === `/${resource}`), resource);
    assert.ok(resources.includes('mcp') && paths.includes('/mcp'));
    const item = (path: string) => {
      const found = doc.paths[path];
      return found.$ref ? doc.components.pathItems[found.$ref.split('/').pop()] : found;
    };
    // A model: list with the total header and the query parameters, creation with its body.
    const list = item('/api/3/cliente').get;
    assert.deepEqual(list.responses['200'].headers['X-Total-Count'], { $ref: '#/components/headers/X-Total-Count' });
    assert.deepEqual(list.parameters.map((p: { $ref: string }) => p.$ref.split('/').pop()), ['filter', 'operation', 'sort', 'limit', 'offset', 'cursor', 'fields', 'expand']);
    const create = item('/api/3/cliente').post;
    assert.equal(create.requestBody.content['application/json'].schema.$ref, '#/components/schemas/cliente.input');
    assert.equal(create.responses['201'].content['application/json'].schema.$ref, '#/components/schemas/cliente');
    assert.ok(doc.components.schemas['cliente.input'].required.includes('nombre'));
    assert.deepEqual(doc.components.schemas.cliente.properties.nombre, { type: 'string', maxLength: 100 });
    assert.equal(doc.components.schemas['cliente.input'].properties.apikey, undefined);
    // The plural alias is the same path item.
    assert.deepEqual(doc.paths['/api/3/clientes'], doc.paths['/api/3/cliente']);
    // Hidden fields never appear: a key's token is no property of its record.
    assert.equal(doc.components.schemas.apikey.properties.apikey, undefined);
    // Errors in their two shapes, with the codes of the catalogue.
    assert.equal(create.responses['401'].$ref, '#/components/responses/E401');
    assert.equal(doc.components.responses.E401.content['application/json'].schema.$ref, '#/components/schemas/AuthError');
    assert.equal(doc.components.responses.E422.content['application/json'].schema.$ref, '#/components/schemas/Error');
    assert.ok(doc.components.schemas.AuthError.properties.error.enum.includes('auth-token-invalid'));
    assert.ok(doc.components.schemas.Error.properties.message.enum.includes('validation-failed'));
    // Custom endpoints and the operational ones (those without a key).
    assert.ok(doc.paths['/api/3/crearFacturaCliente'].post);
    assert.deepEqual(doc.paths['/health'].get.security, []);
    assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'X-Auth-Token', description: 'An API key (`Token` is accepted too).' });
  });

  it('describes the settings\' known keys as the checks of a settings write hold them', async () => {
    const { properties } = (await document()).components.schemas['settings.default'];
    assert.deepEqual(properties.decimals, { type: ['integer', 'null'], minimum: 0, maximum: 6, default: 2 });
    assert.equal(properties.codserie['x-references'], 'series.codserie');
    // Each bound the schema states is one the API enforces, key by key.
    const refused = async (key: string, value: unknown, reason: string) => {
      const answer = await t().call('PUT', '/api/3/settings/default', { properties: { [key]: value } });
      assert.deepEqual([answer.status, answer.body.fields?.[`properties.${key}`]], [422, reason], `${key}: ${JSON.stringify(value)}`);
    };
    for (const [key, schema] of Object.entries(properties as Record<string, any>)) {
      if (schema.enum) await refused(key, 'not-one-of-them', 'invalid-value');
      if (schema.maximum !== undefined) await refused(key, schema.maximum + 1, 'out-of-range');
      if (schema.minimum !== undefined) await refused(key, schema.minimum - 1, 'out-of-range');
      if (schema['x-references']) await refused(key, schema.type.includes('integer') ? 999_999 : 'Q'.repeat(Math.min(schema.maxLength ?? 3, 3)), 'not-found');
      if (schema.maxLength !== undefined) await refused(key, 'x'.repeat(schema.maxLength + 1), 'too-long');
    }
  });

  it('follows the plugins switched on and off', async () => {
    const notes = '/api/3/notacliente';
    assert.equal((await document()).paths[notes], undefined);
    assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/enable')).status, 200);
    try {
      const doc = await document();
      assert.ok(doc.paths[notes] && doc.paths['/api/3/clienteNotas/{codcliente}'].get);
    } finally {
      assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/disable')).status, 200);
    }
    assert.equal((await document()).paths[notes], undefined);
  });

  it('matches docs/openapi.json (run `npm run openapi` after changing a model or a route)', async (context) => {
    if (t().engine !== 'sqlite') return context.diagnostic('checked once, on SQLite');
    assert.equal(fs.readFileSync(OPENAPI_FILE, 'utf8'), await generatedOpenApi());
  });
});
