import assert from 'node:assert/strict';
import { it } from 'node:test';
import { withoutModules } from '../src/modules/index.ts';
import { forEachEngine, multipart } from './helpers/test-app.ts';


forEachEngine('generic model resources', (t) => {
  it('lists every canonical resource at the root, with and without the trailing slash', async () => {
    for (const url of ['/api/3/', '/api/3']) {
      const { status, body } = await t().call('GET', url);
      assert.equal(status, 200);
      assert.deepEqual(body.resources, [...body.resources].sort());
      for (const name of ['settings', 'apikey', 'apiaccess', 'cliente', 'producto']) assert.ok(body.resources.includes(name), name);
      assert.ok(!body.resources.includes('clientes'), 'aliases are not listed');
    }
  });

  it('creates a record with generated code key and reads it back with the same JSON types on every engine', async () => {
    const created = await t().call('POST', '/api/3/cliente', {
      nombre: 'Ana López',
      cifnif: 'B12345678',
      email: 'ana@example.com',
      fechabaja: '31-12-2030',
      riesgomax: '1500.25',
      personafisica: 'false',
    });
    assert.equal(created.status, 201);
    // The business date on the installation's wall clock (Europe/Madrid), not UTC's: they differ for an hour or two each night.
    const today = t().app.ctx.clock.today().date;
    const expected = {
      codcliente: '1',
      nombre: 'Ana López',
      razonsocial: 'Ana López',
      cifnif: 'B12345678',
      email: 'ana@example.com',
      fechaalta: today,
      fechabaja: '2030-12-31',
      debaja: true,
      riesgomax: 1500.25,
      personafisica: false,
      regimeniva: 'General',
      telefono1: null,
    };
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(created.body[key], value, key);
    const fetched = await t().call('GET', '/api/3/cliente/1');
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, created.body);
    const viaAlias = await t().call('GET', '/api/3/clientes/1');
    assert.deepEqual(viaAlias.body, fetched.body);
  });

  it('gives the same record from JSON, form-urlencoded and multipart bodies', async () => {
    const fields = { codcliente: 'X', nombre: 'Same', cifnif: '1', personafisica: 'false', riesgomax: '10.5', fechaalta: '2026-01-02' };
    const json = await t().call('POST', '/api/3/cliente', { ...fields, codcliente: 'JSON1', personafisica: false, riesgomax: 10.5 });
    const form = await t().request({
      method: 'POST',
      url: '/api/3/clientes',
      payload: new URLSearchParams({ ...fields, codcliente: 'FORM1' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const mp = multipart({ ...fields, codcliente: 'MULTI1' });
    const multi = await t().request({ method: 'POST', url: '/api/3/cliente', payload: mp.payload, headers: mp.headers });
    assert.equal(json.status, 201);
    assert.equal(form.statusCode, 201, form.body);
    assert.equal(multi.statusCode, 201, multi.body);
    // Each customer gets its own billing contact (a new id).
    const strip = (record: Record<string, unknown>) => ({ ...record, codcliente: undefined, idcontactofact: undefined });
    assert.deepEqual(strip(form.json()), strip(json.body));
    assert.deepEqual(strip(multi.json()), strip(json.body));
  });

  it('updates with PUT and PATCH (partial) and returns the updated record', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'UPD', nombre: 'Before', telefono1: '111' });
    const put = await t().call('PUT', '/api/3/cliente/UPD', { nombre: 'After' });
    assert.equal(put.status, 200);
    assert.equal(put.body.nombre, 'After');
    assert.equal(put.body.telefono1, '111');
    const patch = await t().call('PATCH', '/api/3/clientes/UPD', { telefono1: null });
    assert.equal(patch.status, 200);
    assert.equal(patch.body.telefono1, null);
    assert.equal(patch.body.nombre, 'After');
    assert.equal((await t().call('GET', '/api/3/cliente/UPD')).body.telefono1, null);
  });

  it('deletes and answers with the deleted record, then 404', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'DEL', nombre: 'Gone' });
    const deleted = await t().call('DELETE', '/api/3/cliente/DEL');
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.ok, 'record-deleted');
    assert.equal(deleted.body.data.codcliente, 'DEL');
    assert.equal((await t().call('GET', '/api/3/cliente/DEL')).status, 404);
    assert.deepEqual((await t().call('DELETE', '/api/3/cliente/DEL')).body, { status: 'error', message: 'record-not-found' });
  });

  it('answers 404 for missing records and unknown resources', async () => {
    assert.deepEqual((await t().call('GET', '/api/3/cliente/NOPE')).body, { status: 'error', message: 'record-not-found' });
    assert.equal((await t().call('GET', '/api/3/producto/abc')).status, 404);
    assert.equal((await t().call('GET', '/api/3/producto/99999999999')).status, 404);
    assert.equal((await t().call('PUT', '/api/3/cliente/NOPE', { nombre: 'x' })).status, 404);
    assert.deepEqual((await t().call('GET', '/api/3/nosuchthing')).body, { status: 'error', message: 'resource-not-found' });
  });

  it('answers 405 with Allow for a method the path does not support', async () => {
    const cases = [
      ['DELETE', '/api/3/cliente', 'GET, POST, HEAD, OPTIONS'],
      ['PUT', '/api/3/clientes', 'GET, POST, HEAD, OPTIONS'],
      ['PATCH', '/api/3/cliente/', 'GET, POST, HEAD, OPTIONS'],
      ['POST', '/api/3/cliente/1', 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS'],
      ['POST', '/api/3/clientes/1', 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS'],
      // `schema` is not taken for a record id by the record path's methods.
      ['POST', '/api/3/cliente/schema', 'GET, HEAD, OPTIONS'],
      ['PUT', '/api/3/cliente/schema', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/api/3/clientes/schema', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/api/3/cliente/schema', 'GET, HEAD, OPTIONS'],
      // A custom endpoint without GET: HEAD is not allowed either.
      ['GET', '/api/3/crearFacturaCliente', 'POST, PUT, OPTIONS'],
      ['HEAD', '/api/3/crearFacturaCliente', 'POST, PUT, OPTIONS'],
    ];
    for (const [method, url, allow] of cases) {
      const response = await t().call(method!, url!, ['DELETE', 'GET', 'HEAD'].includes(method!) ? undefined : {});
      assert.equal(response.status, 405, `${method} ${url}`);
      if (method !== 'HEAD') assert.equal(response.body.message, 'method-not-allowed');
      assert.equal(response.headers.allow, allow, `${method} ${url}`);
    }
    // Paths that are no resource's stay 404, whatever the method.
    for (const [method, url] of [['DELETE', '/api/3/nosuchthing'], ['PUT', '/api/3/cliente/1/extra'], ['POST', '/api/3/cliente/1/2']]) {
      assert.equal((await t().call(method!, url!, method === 'DELETE' ? undefined : {})).body.message, 'resource-not-found', `${method} ${url}`);
    }
  });

  it('answers HEAD with the headers GET gives and no body', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'HEAD1', nombre: 'Head' });
    for (const url of ['/api/3/cliente/HEAD1', '/api/3/clientes?limit=5', '/api/3/cliente/schema']) {
      const get = await t().request({ method: 'GET', url });
      const head = await t().request({ method: 'HEAD', url });
      assert.equal(head.statusCode, 200, url);
      assert.equal(head.body, '', url);
      for (const name of ['content-type', 'content-length', 'etag', 'x-total-count']) assert.equal(head.headers[name], get.headers[name], `${name} of ${url}`);
    }
  });

  it('refuses invalid bodies with 422 naming each offending field', async () => {
    const response = await t().call('POST', '/api/3/cliente', {
      codcliente: 'TOO-LONG-CODE-X',
      riesgomax: 'abc',
      debaja: 'maybe',
      fechaalta: '2026-02-30',
      idcontactofact: 1.5,
      unknownfield: 1,
      email: 'not-an-email',
    });
    assert.equal(response.status, 422);
    assert.equal(response.body.message, 'validation-failed');
    assert.deepEqual(response.body.fields, {
      codcliente: 'too-long',
      riesgomax: 'invalid-number',
      debaja: 'invalid-boolean',
      fechaalta: 'invalid-date',
      idcontactofact: 'invalid-integer',
      unknownfield: 'unknown-field',
    });
    const missing = await t().call('POST', '/api/3/cliente', { email: 'bad' });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body.fields, { nombre: 'required', email: 'invalid-email' });
    const nulled = await t().call('POST', '/api/3/cliente', { nombre: null });
    assert.deepEqual(nulled.body.fields, { nombre: 'required' });
  });

  it('refuses writes to hidden or read-only fields, and a change of primary key', async () => {
    const key = await t().call('POST', '/api/3/apikey', { description: 'k', apikey: 'chosen-token' });
    assert.equal(key.status, 422);
    assert.deepEqual(key.body.fields, { apikey: 'read-only' });
    await t().call('POST', '/api/3/cliente', { codcliente: 'PK1', nombre: 'pk' });
    const moved = await t().call('PATCH', '/api/3/cliente/PK1', { codcliente: 'PK2' });
    assert.equal(moved.status, 422);
    assert.deepEqual(moved.body.fields, { codcliente: 'read-only' });
    const same = await t().call('PATCH', '/api/3/cliente/PK1', { codcliente: 'PK1', nombre: 'kept' });
    assert.equal(same.status, 200);
  });

  it('answers 409 for a duplicate primary key or unique value', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'DUP', nombre: 'one' });
    const dup = await t().call('POST', '/api/3/cliente', { codcliente: 'DUP', nombre: 'two' });
    assert.deepEqual([dup.status, dup.body], [409, { status: 'error', message: 'duplicate-record' }]);
    await t().call('POST', '/api/3/producto', { referencia: 'REF-1' });
    const dupRef = await t().call('POST', '/api/3/producto', { referencia: 'REF-1' });
    assert.equal(dupRef.status, 409);
  });

  it('answers 400 for malformed JSON, and 400 for bodies that are not objects or empty', async () => {
    const bad = await t().request({ method: 'POST', url: '/api/3/cliente', payload: '{"nombre":', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([bad.statusCode, bad.json()], [400, { status: 'error', message: 'invalid-json' }]);
    assert.equal((await t().call('POST', '/api/3/cliente', [1, 2])).body.message, 'invalid-body');
    assert.equal((await t().call('POST', '/api/3/cliente', {})).body.message, 'no-data');
    const empty = await t().request({ method: 'PUT', url: '/api/3/cliente/1', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([empty.statusCode, empty.json().message], [400, 'no-data']);
    const xml = await t().request({ method: 'POST', url: '/api/3/cliente', payload: '<x/>', headers: { 'content-type': 'application/xml' } });
    assert.deepEqual([xml.statusCode, xml.json().message], [415, 'unsupported-media-type']);
  });

  it('treats GET and DELETE carrying Content-Type: application/json and no body as normal requests', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'CT', nombre: 'ct' });
    const get = await t().request({ method: 'GET', url: '/api/3/cliente/CT', headers: { 'content-type': 'application/json' } });
    assert.equal(get.statusCode, 200);
    const del = await t().request({ method: 'DELETE', url: '/api/3/cliente/CT', headers: { 'content-type': 'application/json' } });
    assert.equal(del.statusCode, 200);
  });

  it('describes each visible field in the schema output, the same under the alias', async () => {
    const { status, body } = await t().call('GET', '/api/3/cliente/schema');
    assert.equal(status, 200);
    assert.deepEqual(body.codcliente, {
      type: 'string', length: 10, nullable: false, is_nullable: 'NO', default: null,
      primary_key: true, required: false, read_only: false, references: null,
    });
    assert.equal(body.nombre.required, true);
    assert.equal(body.debaja.default, false);
    assert.equal(body.debaja.type, 'boolean');
    assert.deepEqual((await t().call('GET', '/api/3/clientes/schema')).body, body);
    const keys = await t().call('GET', '/api/3/apikey/schema');
    assert.ok(!('apikey' in keys.body), 'hidden token not in schema');
    assert.ok('description' in keys.body);
    const access = await t().call('GET', '/api/3/apiaccess/schema');
    assert.equal(access.body.idapikey.references, 'api_keys.id');
  });

  it('never returns hidden fields, and returns the generated token only on creation', async () => {
    const created = await t().call('POST', '/api/3/apikey', { description: 'reader' });
    assert.equal(created.status, 201);
    assert.match(created.body.apikey, /^[0-9A-Za-z]{20}$/);
    const got = await t().call('GET', `/api/3/apikey/${created.body.id}`);
    assert.ok(!('apikey' in got.body));
    const listed = await t().call('GET', '/api/3/apikeyes');
    assert.ok(listed.body.every((row: object) => !('apikey' in row)));
    const updated = await t().call('PATCH', `/api/3/apikey/${created.body.id}`, { description: 'renamed' });
    assert.ok(!('apikey' in updated.body));
    const deleted = await t().call('DELETE', `/api/3/apikey/${created.body.id}`);
    assert.ok(!('apikey' in deleted.body.data));
  });
});

forEachEngine('explicit serial ids', (t) => {
  it('keeps generating fresh ids after a record was created with an explicit serial id', async () => {
    assert.equal((await t().call('POST', '/api/3/producto', { idproducto: 5, referencia: 'EXPLICIT-5' })).status, 201);
    const next = await t().call('POST', '/api/3/producto', { referencia: 'GENERATED' });
    assert.equal(next.status, 201, JSON.stringify(next.body));
    assert.equal(next.body.idproducto, 6);
  });
}, { modules: withoutModules('installation') });
