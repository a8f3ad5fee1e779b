import assert from 'node:assert/strict';
import { it } from 'node:test';
import fastJsonStringify from 'fast-json-stringify';
import Fastify from 'fastify';
import { registerLazySerializers } from '../src/http/lazy-serializers.ts';
import { startTestApp } from './helpers/test-app.ts';

it('compiles a response serialiser on its first answer, once per schema, with fast-json-stringify output', async () => {
  const built: object[] = [];
  const app = Fastify();
  registerLazySerializers(app, (schema) => {
    built.push(schema);
    return fastJsonStringify(schema);
  });
  const record = { type: 'object', properties: { code: { type: 'string' }, total: { type: 'number' } } };
  // Two names of one resource share the schema object, as model routes register their aliases.
  for (const url of ['/cliente/:id', '/clientes/:id']) app.get(url, { schema: { response: { 200: record } } }, async () => ({ code: 'C1', total: 12.5, secret: 'hidden' }));
  app.get('/other', { schema: { response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } } }, async () => ({ n: 1 }));
  await app.ready();
  assert.equal(built.length, 0, 'nothing compiled at start');

  const first = await app.inject({ url: '/cliente/1' });
  assert.equal(first.body, '{"code":"C1","total":12.5}', 'fields outside the schema are not written');
  assert.deepEqual(built, [record]);
  for (const url of ['/cliente/2', '/clientes/1']) assert.equal((await app.inject({ url })).body, first.body);
  assert.equal((await app.inject({ method: 'HEAD', url: '/clientes/1' })).statusCode, 200);
  assert.equal(built.length, 1, 'aliases and HEAD reuse the serialiser');
  await app.inject({ url: '/other' });
  assert.equal(built.length, 2);
  await app.close();
});

it('every response schema of the service compiles (Fastify no longer compiles them at start)', async () => {
  const test = await startTestApp('sqlite');
  try {
    const schemas = new Set<object>();
    for (const route of test.app.ctx.routes) {
      for (const schema of Object.values((route.schema?.response ?? {}) as Record<string, object>)) schemas.add(schema);
    }
    assert.ok(schemas.size > 100, `every model's list and record schemas (${schemas.size})`);
    for (const schema of schemas) assert.equal(typeof fastJsonStringify(schema), 'function');
  } finally {
    await test.close();
  }
});
