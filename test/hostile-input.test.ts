import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { enabledEngines } from './helpers/engines.ts';
import { forEachEngine, multipart, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Hostile input, as a table: SQL fragments where names and values go, traversal names, oversized
 * and deeply nested bodies, out-of-range paging, invalid UTF-8, wrong content types and encodings.
 * Each row is answered with its 4xx (or, for a value that is merely odd data, an empty 200) and
 * the database is left exactly as it was.
 */
type Row = {
  name: string;
  request: InjectOptions;
  status: number;
  /** `message` (or `error`) of the answer. */
  code?: string;
};

const json = (payload: unknown) => ({ payload: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
const deep = (depth: number) => `{"nombre":"x","observaciones":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const huge = 'x'.repeat(1_100_000);

export const HOSTILE: Row[] = [
  // SQL in the places names go: refused before SQL exists.
  { name: 'SQL in a filter key', request: { method: 'GET', url: '/api/3/cliente?filter[nombre;DROP TABLE clientes]=1' }, status: 400, code: 'invalid-filter-field' },
  { name: 'SQL in a filter key suffix', request: { method: 'GET', url: "/api/3/cliente?filter[nombre_like' OR '1'='1]=1" }, status: 400, code: 'invalid-filter-field' },
  { name: 'SQL in a sort key', request: { method: 'GET', url: '/api/3/cliente?sort[nombre DESC, (SELECT 1)]=ASC' }, status: 400, code: 'invalid-sort-field' },
  { name: 'SQL in a sort direction', request: { method: 'GET', url: '/api/3/cliente?sort[nombre]=ASC;DELETE FROM clientes' }, status: 400, code: 'invalid-sort-direction' },
  { name: 'SQL in an operation', request: { method: 'GET', url: '/api/3/cliente?filter[nombre]=a&operation[nombre]=OR 1=1' }, status: 400, code: 'invalid-operation' },
  { name: 'SQL in a numeric filter value', request: { method: 'GET', url: '/api/3/facturacliente?filter[idfactura]=1 OR 1=1' }, status: 400, code: 'invalid-filter-value' },
  { name: 'SQL in a path id (integer key)', request: { method: 'GET', url: '/api/3/facturacliente/1%20OR%201=1' }, status: 404, code: 'record-not-found' },
  { name: 'SQL in a path id (text key)', request: { method: 'DELETE', url: "/api/3/cliente/x'%20OR%20'1'='1" }, status: 404, code: 'record-not-found' },
  { name: 'SQL in a document path id', request: { method: 'PUT', url: '/api/3/editarFacturaCliente/1;DROP%20TABLE%20facturascli', ...json({ observaciones: 'x' }) }, status: 404, code: 'record-not-found' },
  // Prototype names.
  { name: 'prototype name as filter', request: { method: 'GET', url: '/api/3/cliente?filter[constructor]=1' }, status: 400, code: 'invalid-filter-field' },
  { name: 'prototype name as sort', request: { method: 'GET', url: '/api/3/cliente?sort[__proto__]=ASC' }, status: 400, code: 'invalid-sort-field' },
  { name: 'prototype name as operator', request: { method: 'GET', url: '/api/3/cliente?filter[nombre_toString]=1' }, status: 400, code: 'invalid-filter-operator' },
  { name: 'prototype pollution in a JSON body', request: { method: 'POST', url: '/api/3/cliente', ...json('{"nombre":"x","__proto__":{"fullaccess":true}}') }, status: 400 },
  { name: 'constructor pollution in a JSON body', request: { method: 'POST', url: '/api/3/cliente', ...json('{"nombre":"x","constructor":{"prototype":{"x":1}}}') }, status: 400 },
  { name: 'prototype name as a form field', request: { method: 'POST', url: '/api/3/cliente', payload: 'nombre=x&__proto__=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, status: 422, code: 'validation-failed' },
  { name: 'prototype name as a multipart field', request: { method: 'POST', url: '/api/3/cliente', ...multipart(JSON.parse('{"nombre":"x","__proto__":"1"}')) }, status: 422, code: 'validation-failed' },
  { name: 'prototype name as a line field', request: { method: 'POST', url: '/api/3/crearFacturaCliente', ...json({ codcliente: 'HOST', lineas: [{ constructor: 1 }] }) }, status: 422, code: 'validation-failed' },
  // Traversal in names.
  { name: 'traversal in a resource name', request: { method: 'GET', url: '/api/3/..%2F..%2Fetc%2Fpasswd' }, status: 404, code: 'resource-not-found' },
  { name: 'traversal in a record id', request: { method: 'GET', url: '/api/3/cliente/..%2F..%2Fetc%2Fpasswd' }, status: 404, code: 'record-not-found' },
  { name: 'dot segments in the path', request: { method: 'GET', url: '/api/3/../../etc/passwd' }, status: 404 },
  { name: 'NUL in a record id', request: { method: 'GET', url: '/api/3/cliente/a%00b' }, status: 404, code: 'record-not-found' },
  // Odd values are data: bound, never run.
  { name: 'SQL in a text filter value', request: { method: 'GET', url: "/api/3/cliente?filter[nombre]=x' OR '1'='1" }, status: 200 },
  { name: 'SQL in a like value', request: { method: 'GET', url: "/api/3/cliente?filter[nombre_like]=%25' OR 1=1 --" }, status: 200 },
  // Text the engines cannot store alike.
  { name: 'NUL in a filter value', request: { method: 'GET', url: '/api/3/cliente?filter[nombre]=a%00b' }, status: 400, code: 'invalid-filter-value' },
  { name: 'NUL in a like value', request: { method: 'GET', url: '/api/3/cliente?filter[nombre_like]=a%00' }, status: 400, code: 'invalid-filter-value' },
  { name: 'NUL in a body string', request: { method: 'POST', url: '/api/3/cliente', ...json({ nombre: 'a\u0000b' }) }, status: 422, code: 'validation-failed' },
  { name: 'lone surrogate in a body string', request: { method: 'POST', url: '/api/3/cliente', ...json('{"nombre":"a\\ud800b"}') }, status: 422, code: 'validation-failed' },
  { name: 'NUL in a document line', request: { method: 'POST', url: '/api/3/crearFacturaCliente', ...json({ codcliente: 'HOST', lineas: [{ descripcion: '\u0000' }] }) }, status: 422, code: 'validation-failed' },
  { name: 'invalid UTF-8 in a JSON body', request: { method: 'POST', url: '/api/3/cliente', payload: Buffer.from([0x7b, 0x22, 0x6e, 0x6f, 0x6d, 0x62, 0x72, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: { 'content-type': 'application/json' } }, status: 400, code: 'invalid-json' },
  // Numbers.
  { name: 'infinite number', request: { method: 'POST', url: '/api/3/producto', ...json('{"referencia":"INF","precio":1e999}') }, status: 422, code: 'validation-failed' },
  { name: 'NaN as text', request: { method: 'POST', url: '/api/3/producto', ...json({ referencia: 'NAN', precio: 'NaN' }) }, status: 422, code: 'validation-failed' },
  { name: 'amount overflow in a line', request: { method: 'POST', url: '/api/3/crearFacturaCliente', ...json({ codcliente: 'HOST', lineas: [{ cantidad: 1e308, pvpunitario: 1e308 }] }) }, status: 422, code: 'validation-failed' },
  // Paging.
  { name: 'huge limit', request: { method: 'GET', url: '/api/3/cliente?limit=99999999999999999999' }, status: 400, code: 'invalid-limit' },
  { name: 'negative limit', request: { method: 'GET', url: '/api/3/cliente?limit=-1' }, status: 400, code: 'invalid-limit' },
  { name: 'negative offset', request: { method: 'GET', url: '/api/3/cliente?offset=-5' }, status: 400, code: 'invalid-offset' },
  { name: 'offset beyond a safe integer', request: { method: 'GET', url: '/api/3/cliente?offset=9007199254740993' }, status: 400, code: 'invalid-offset' },
  { name: 'repeated limit', request: { method: 'GET', url: '/api/3/cliente?limit=1&limit=2' }, status: 400, code: 'duplicate-parameter' },
  // Sizes and shapes.
  { name: 'body over BODY_LIMIT (JSON)', request: { method: 'POST', url: '/api/3/cliente', ...json({ nombre: huge }) }, status: 413, code: 'body-too-large' },
  { name: 'body over BODY_LIMIT (form)', request: { method: 'POST', url: '/api/3/cliente', payload: `nombre=${huge}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, status: 413, code: 'body-too-large' },
  { name: 'body over BODY_LIMIT (multipart)', request: { method: 'POST', url: '/api/3/cliente', ...multipart({ nombre: huge }) }, status: 413, code: 'body-too-large' },
  { name: 'too many multipart parts', request: { method: 'POST', url: '/api/3/cliente', ...multipart(Object.fromEntries(Array.from({ length: 1100 }, (_, i) => [`f${i}`, 'x']))) }, status: 413, code: 'body-too-large' },
  { name: 'JSON nested 40 levels', request: { method: 'POST', url: '/api/3/cliente', ...json(deep(40)) }, status: 400, code: 'invalid-json' },
  { name: 'JSON nested 300000 levels', request: { method: 'POST', url: '/api/3/cliente', ...json(deep(300_000)) }, status: 400, code: 'invalid-json' },
  { name: 'JSON settings nested 10000 levels', request: { method: 'PUT', url: '/api/3/settings/default', ...json(`{"properties":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`) }, status: 400, code: 'invalid-json' },
  { name: 'lineas as a deeply nested string', request: { method: 'POST', url: '/api/3/crearFacturaCliente', payload: `codcliente=HOST&lineas=${'['.repeat(5000)}${']'.repeat(5000)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, status: 400, code: 'invalid-lines' },
  { name: 'a JSON array as body', request: { method: 'POST', url: '/api/3/cliente', ...json([{ nombre: 'x' }]) }, status: 400, code: 'invalid-body' },
  { name: 'a JSON string as body', request: { method: 'POST', url: '/api/3/cliente', ...json('"x"') }, status: 400, code: 'invalid-body' },
  { name: 'truncated JSON', request: { method: 'POST', url: '/api/3/cliente', ...json('{"nombre":"x"') }, status: 400, code: 'invalid-json' },
  // Content types and encodings.
  { name: 'text/plain body', request: { method: 'POST', url: '/api/3/cliente', payload: 'nombre=x', headers: { 'content-type': 'text/plain' } }, status: 415, code: 'unsupported-media-type' },
  { name: 'XML body', request: { method: 'POST', url: '/api/3/cliente', payload: '<cliente/>', headers: { 'content-type': 'application/xml' } }, status: 415, code: 'unsupported-media-type' },
  { name: 'multipart without a boundary', request: { method: 'POST', url: '/api/3/cliente', payload: 'x', headers: { 'content-type': 'multipart/form-data' } }, status: 400, code: 'invalid-body' },
  { name: 'multipart cut short inside a file', request: { method: 'POST', url: '/api/3/cliente', payload: '--B\r\nContent-Disposition: form-data; name="nombre"\r\n\r\nAna\r\n--B\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhalf a fi', headers: { 'content-type': 'multipart/form-data; boundary=B' } }, status: 400, code: 'invalid-body' },
  { name: 'truncated multipart', request: { method: 'POST', url: '/api/3/cliente', payload: '--B\r\nContent-Disposition: form-data; name="nombre"\r\n\r\nAna', headers: { 'content-type': 'multipart/form-data; boundary=B' } }, status: 400, code: 'invalid-body' },
  { name: 'gzip-compressed body', request: { method: 'POST', url: '/api/3/cliente', payload: Buffer.from([0x1f, 0x8b, 0x08, 0x00]), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }, status: 415, code: 'unsupported-content-encoding' },
  { name: 'undecodable path', request: { method: 'GET', url: '/api/3/cliente/%E0%A4%A' }, status: 400, code: 'invalid-url' },
  // Settings that would break every later document.
  { name: 'decimals as text', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: { decimals: 'abc' } }) }, status: 422, code: 'validation-failed' },
  { name: 'negative decimals', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: { decimals: -1 } }) }, status: 422, code: 'validation-failed' },
  { name: 'fractional decimals', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: { decimals: 2.5 } }) }, status: 422, code: 'validation-failed' },
  { name: 'enable_api not a boolean', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: { enable_api: 'perhaps' } }) }, status: 422, code: 'validation-failed' },
  { name: 'a default serie that does not exist', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: { codserie: 'ZZZ' } }) }, status: 422, code: 'validation-failed' },
  { name: 'settings properties as an array', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: [1, 2] }) }, status: 422, code: 'validation-failed' },
  { name: 'settings properties as null', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: null }) }, status: 422, code: 'validation-failed' },
  { name: 'settings properties as a file', request: { method: 'PUT', url: '/api/3/settings/default', ...multipart({}, [{ field: 'properties', name: 'p.json', type: 'application/json', content: '{"decimals":3}' }]) }, status: 422, code: 'validation-failed' },
  { name: 'an unknown tax method', request: { method: 'PUT', url: '/api/3/settings/default', ...json({ properties: { taxcalculationmethod: 'creative' } }) }, status: 422, code: 'validation-failed' },
  // Keys.
  { name: 'SQL as the key', request: { method: 'GET', url: '/api/3/cliente', headers: { 'x-auth-token': "' OR '1'='1" } }, status: 401, code: 'auth-token-invalid' },
  { name: 'an over-long key', request: { method: 'GET', url: '/api/3/cliente', headers: { 'x-auth-token': 'k'.repeat(10_000) } }, status: 401, code: 'auth-token-invalid' },
];

/** Row counts of the tables a hostile request could touch, and the stored settings. */
async function snapshot(t: TestApp): Promise<string> {
  const db = t.app.ctx.database.kysely;
  const tables = ['clientes', 'productos', 'variantes', 'stocks', 'facturascli', 'lineasfacturascli', 'recibospagoscli', 'api_keys', 'api_access', 'code_counters'];
  const counts = await Promise.all(tables.map(async (table) => `${table}:${(await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n}`));
  const settings = await db.selectFrom('settings').select('properties').where('name', '=', 'default').executeTakeFirstOrThrow();
  return `${counts.join(',')}|${settings.properties}`;
}

forEachEngine('hostile input', (t) => {
  let before: string;
  it('prepares a customer and takes a snapshot', async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'HOST', nombre: 'Host' })).status, 201);
    before = await snapshot(t());
  });
  for (const [index, row] of HOSTILE.entries()) {
    it(`${row.name}: ${row.status}${row.code ? ` ${row.code}` : ''}`, async () => {
      // Each row from its own address: failed keys must not ban the rows after them.
      const headers = { 'x-auth-token': 'test-global-key-0123456789', ...row.request.headers };
      const answer = await t().app.server.inject({ ...row.request, headers, remoteAddress: `10.9.${index >> 8}.${index & 255}` });
      assert.equal(answer.statusCode, row.status, answer.body.slice(0, 300));
      assert.equal(answer.headers['access-control-allow-origin'], '*');
      const body = JSON.parse(answer.body);
      if (row.code) assert.equal(body.message ?? body.error, row.code, answer.body.slice(0, 300));
      if (row.status === 200) assert.deepEqual(body, []);
    });
  }
  it('left every table and the settings as they were', async () => {
    assert.equal(await snapshot(t()), before);
  });
});

/** Malformed HTTP never reaches a route: the answer still has the documented shape. */
const engine = enabledEngines()[0]!;
describe('malformed HTTP on a real socket', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp(engine);
    await t.app.server.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.server.address() as net.AddressInfo).port;
  });
  after(async () => t.close());

  const raw = (bytes: string) => new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });

  it('stops reading a multipart body past BODY_LIMIT while it streams (no Content-Length): 413, connection closed', async () => {
    const outcome = await new Promise<{ status: number; sent: number; body: string }>((resolve) => {
      const request = http.request({ port, method: 'POST', path: '/api/3/cliente', headers: { 'content-type': 'multipart/form-data; boundary=B', 'x-auth-token': 'test-global-key-0123456789' } });
      let sent = 0;
      let status = 0;
      let body = '';
      request.on('response', (response) => {
        status = response.statusCode!;
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status, sent, body }));
      });
      request.on('error', () => resolve({ status, sent, body }));
      const chunk = Buffer.alloc(64 * 1024, 'a');
      request.write('--B\r\nContent-Disposition: form-data; name="doc"; filename="big.bin"\r\n\r\n');
      const pump = () => {
        while (sent < 200 * 1024 * 1024 && !request.destroyed) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        request.end('\r\n--B--\r\n');
      };
      pump();
    });
    assert.equal(outcome.status, 413);
    assert.deepEqual(JSON.parse(outcome.body), { status: 'error', message: 'body-too-large' });
    // The server stopped reading long before the 200 MiB were sent (what passed is socket buffers).
    assert.ok(outcome.sent < 50 * 1024 * 1024, `${outcome.sent} bytes were accepted`);
  });

  for (const [name, bytes, status, code] of [
    ['garbage instead of a request line', 'GARBAGE\r\n\r\n', 400, 'invalid-request'],
    ['a header without a colon', 'GET /api/3/ HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n', 400, 'invalid-request'],
    ['conflicting body lengths', 'POST /api/3/cliente HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'invalid-request'],
    ['headers beyond the server limit', `GET /api/3/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers-too-large'],
  ] as const) {
    it(`${name}: ${status} ${code}`, async () => {
      const answer = await raw(bytes);
      assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.match(answer, /access-control-allow-origin: \*/i);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { status: 'error', message: code });
    });
  }
});
