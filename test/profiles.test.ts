import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * The two response profiles: `spec` (the default, strict) and `facturascripts` (answers as the
 * established system does: docs/compatibility.md). Same requests, both keys, every engine.
 */
async function createKey(t: TestApp, profile: 'spec' | 'facturascripts'): Promise<string> {
  const answer = await t.call('POST', '/api/3/apikey', { description: `${profile} client`, fullaccess: true, profile });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body.apikey;
}

forEachEngine('response profiles', (t) => {
  let spec: string;
  let legacy: string;
  before(async () => {
    spec = await createKey(t(), 'spec');
    legacy = await createKey(t(), 'facturascripts');
  });

  it('wraps writes for facturascripts keys (200 {ok, data}) and answers 201 with the record for spec keys', async () => {
    const strict = await t().call('POST', '/api/3/cliente', { codcliente: 'PS1', nombre: 'Spec' }, spec);
    assert.equal(strict.status, 201);
    assert.equal(strict.body.codcliente, 'PS1');
    assert.match(strict.body.fechaalta, /^\d{4}-\d{2}-\d{2}$/);

    const created = await t().call('POST', '/api/3/clientes', { codcliente: 'PF1', nombre: 'Legacy' }, legacy);
    assert.equal(created.status, 200);
    assert.equal(created.body.ok, 'Record updated correctly!');
    assert.equal(created.body.data.codcliente, 'PF1');
    assert.match(created.body.data.fechaalta, /^\d{2}-\d{2}-\d{4}$/, 'dates as DD-MM-YYYY');

    const updated = await t().call('PUT', '/api/3/clientes/PF1', { telefono1: '911' }, legacy);
    assert.deepEqual([updated.status, updated.body.ok, updated.body.data.telefono1], [200, 'Record updated correctly!', '911']);
    const deleted = await t().call('DELETE', '/api/3/clientes/PF1', undefined, legacy);
    assert.deepEqual([deleted.status, deleted.body.ok, deleted.body.data.codcliente], [200, 'Record deleted correctly!', 'PF1']);
    assert.equal((await t().call('DELETE', '/api/3/cliente/PS1', undefined, spec)).body.ok, 'record-deleted');
  });

  it('ignores fields that are not columns for facturascripts keys, and names them (with a hint) for spec keys', async () => {
    const refused = await t().call('POST', '/api/3/cliente', { codcliente: 'PS2', nombre: 'x', token: 'abc', action: 'save' }, spec);
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.fields, { token: 'unknown-field', action: 'unknown-field' });
    assert.match(refused.body.hint, /facturascripts profile/);
    const accepted = await t().call('POST', '/api/3/cliente', { codcliente: 'PF2', nombre: 'x', token: 'abc', action: 'save' }, legacy);
    assert.equal(accepted.status, 200);
    assert.equal('token' in accepted.body.data, false);
  });

  it('answers model errors in the established shape for facturascripts keys', async () => {
    assert.deepEqual(await pick(t().call('GET', '/api/3/clientes/NOPE', undefined, legacy)), [404, { error: 'Record not found' }]);
    assert.deepEqual(await pick(t().call('POST', '/api/3/clientes', { codcliente: 'PF2', nombre: 'again' }, legacy)), [400, { error: 'Duplicated record' }]);
    const invalid = await t().call('POST', '/api/3/clientes', { codcliente: 'PF3', nombre: null }, legacy);
    assert.equal(invalid.status, 400);
    assert.match(invalid.body.error, /^An error occurred while saving the record - Field nombre/);
    assert.deepEqual(await pick(t().call('GET', '/api/3/clientes?filter[nope]=1', undefined, legacy)), [400, { error: 'api: fields not allowed: nope' }]);
    // The spec profile keeps its own codes.
    assert.deepEqual(await pick(t().call('GET', '/api/3/cliente/NOPE', undefined, spec)), [404, { status: 'error', message: 'record-not-found' }]);
  });

  it('lists every row when limit is not a positive number, for facturascripts keys only', async () => {
    for (let i = 0; i < 60; i++) await t().call('POST', '/api/3/cliente', { codcliente: `L${String(i).padStart(2, '0')}`, nombre: `Row ${i}` });
    const total = Number((await t().call('GET', '/api/3/cliente?limit=1')).headers['x-total-count']);
    for (const query of ['limit=0', 'limit=-1', 'limit=abc&offset=-5']) {
      const all = await t().call('GET', `/api/3/clientes?${query}`, undefined, legacy);
      assert.equal(all.status, 200, query);
      assert.equal(all.body.length, total, query);
      assert.equal(all.headers['x-total-count'], String(total));
    }
    assert.equal((await t().call('GET', '/api/3/clientes', undefined, legacy)).body.length, 50, 'the default page is still 50');
    assert.equal((await t().call('GET', '/api/3/clientes?limit=5000', undefined, legacy)).status, 200, 'no maximum');
    assert.equal((await t().call('GET', '/api/3/cliente?limit=5000', undefined, spec)).status, 400);
    assert.equal((await t().call('GET', '/api/3/cliente?limit=0', undefined, spec)).status, 400);
  });

  it('reads _like values with wildcards and unknown sort directions as ASC for facturascripts keys', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'WILD', nombre: 'abc_def' });
    await t().call('POST', '/api/3/cliente', { codcliente: 'WILE', nombre: 'abcXdef' });
    const codes = (answer: { body: Array<{ codcliente: string }> }) => answer.body.map((row) => row.codcliente).sort();
    assert.deepEqual(codes(await t().call('GET', '/api/3/clientes?filter[nombre_like]=c_d', undefined, legacy)), ['WILD', 'WILE']);
    assert.deepEqual(codes(await t().call('GET', '/api/3/cliente?filter[nombre_like]=c_d', undefined, spec)), ['WILD']);
    assert.deepEqual(codes(await t().call('GET', '/api/3/clientes?filter[nombre_like]=abc%25def', undefined, legacy)), ['WILD', 'WILE']);
    const sideways = await t().call('GET', '/api/3/clientes?filter[codcliente_like]=wil&sort[codcliente]=SIDEWAYS', undefined, legacy);
    assert.deepEqual(sideways.body.map((row: { codcliente: string }) => row.codcliente), ['WILD', 'WILE']);
    assert.equal((await t().call('GET', '/api/3/cliente?sort[codcliente]=SIDEWAYS', undefined, spec)).status, 400);
  });

  it('sorts by a column read as an integer or in lower case, for every key', async () => {
    for (const code of ['9', '10', '100']) await t().call('POST', '/api/3/agente', { codagente: code, nombre: `Agent ${code}` });
    for (const key of [spec, legacy]) {
      const rows = (await t().call('GET', '/api/3/agentes?filter[codagente_lt]=A&sort[integer:codagente]=DESC', undefined, key)).body;
      assert.deepEqual(rows.map((row: { codagente: string }) => row.codagente).filter((code: string) => ['9', '10', '100'].includes(code)), ['100', '10', '9']);
    }
  });

  it('reads dates in either format for every key, and writes them as each profile has them', async () => {
    const created = await t().call('POST', '/api/3/cliente', { codcliente: 'DATES', nombre: 'Dates', fechaalta: '02-01-2025' }, spec);
    assert.equal(created.body.fechaalta, '2025-01-02');
    assert.equal((await t().call('GET', '/api/3/clientes/DATES', undefined, legacy)).body.fechaalta, '02-01-2025');
    const filtered = await t().call('GET', '/api/3/clientes?filter[fechaalta]=02-01-2025', undefined, legacy);
    assert.deepEqual(filtered.body.map((row: { codcliente: string }) => row.codcliente), ['DATES']);
    const document = await t().call('POST', '/api/3/crearPedidoCliente', { codcliente: 'DATES', fecha: '2025-03-04' }, legacy);
    assert.equal(document.body.doc.fecha, '04-03-2025');
    assert.match(document.body.doc.creationdate, /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
  });

  it('lists the established plural names at the root for facturascripts keys', async () => {
    const legacyRoot = (await t().call('GET', '/api/3/', undefined, legacy)).body.resources;
    const specRoot = (await t().call('GET', '/api/3/', undefined, spec)).body.resources;
    assert.ok(legacyRoot.includes('clientes') && legacyRoot.includes('facturaclientes') && !legacyRoot.includes('cliente'));
    assert.ok(specRoot.includes('cliente') && !specRoot.includes('clientes'));
    assert.ok(legacyRoot.includes('crearFacturaCliente'));
    assert.deepEqual(legacyRoot, [...legacyRoot].sort());
  });

  it('gives the global key the profile of the setting api_profile', async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'G1', nombre: 'Global' })).status, 201);
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { api_profile: 'facturascripts' } })).status, 200);
    const wrapped = await t().call('POST', '/api/3/cliente', { codcliente: 'G2', nombre: 'Global' });
    assert.deepEqual([wrapped.status, wrapped.body.ok], [200, 'Record updated correctly!']);
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { api_profile: 'spec' } })).status, 200);
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { api_profile: 'other' } })).status, 422);
    assert.equal((await t().call('POST', '/api/3/apikey', { description: 'bad', profile: 'other' })).status, 422);
  });

  it('never shows the password key of a settings group, for any key', async () => {
    const written = await t().call('PUT', '/api/3/settings/email', { properties: { host: 'smtp.example', password: 's3cret' } }, spec);
    assert.equal(written.status, 404, 'the email group does not exist yet: created below');
    const created = await t().call('POST', '/api/3/settings', { name: 'email', properties: { host: 'smtp.example', password: 's3cret' } }, spec);
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.properties, { host: 'smtp.example' });
    for (const key of [spec, legacy]) assert.deepEqual((await t().call('GET', '/api/3/settings/email', undefined, key)).body.properties, { host: 'smtp.example' });
    const kept = await t().call('PUT', '/api/3/settings/email', { properties: { host: 'smtp2.example' } }, spec);
    assert.deepEqual(kept.body.properties, { host: 'smtp2.example' });
    const stored = await t().app.ctx.database.kysely.selectFrom('settings').select('properties').where('name', '=', 'email').executeTakeFirstOrThrow();
    assert.equal(JSON.parse(String(stored.properties)).password, 's3cret', 'stored, and kept by a later update');
  });

  it('streams a list of 100k rows without holding it in memory', async () => {
    const db = t().app.ctx.database.kysely;
    for (let start = 0; start < 100_000; start += 2000) {
      await db.insertInto('fabricantes').values(Array.from({ length: 2000 }, (_, i) => ({ codfabricante: `M${start + i}`, nombre: `Maker ${start + i} with a name long enough to weigh` }))).execute();
    }
    await t().app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t().app.server.server.address() as AddressInfo;
    global.gc?.();
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const { status, rows, chunked, totalHeader } = await new Promise<{ status: number; rows: number; chunked: boolean; totalHeader: string }>((resolve, reject) => {
      http.get({ port, path: '/api/3/fabricantes?limit=0', headers: { 'x-auth-token': legacy } }, (response) => {
        let rows = 0;
        let tail = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          // Count records without keeping the body: each has one "codfabricante" key.
          const text = tail + chunk;
          rows += text.split('"codfabricante"').length - 1;
          tail = text.slice(-20);
          rows -= tail.split('"codfabricante"').length - 1;
        });
        response.on('end', () => {
          rows += tail.split('"codfabricante"').length - 1;
          resolve({ status: response.statusCode!, rows, chunked: response.headers['transfer-encoding'] === 'chunked', totalHeader: String(response.headers['x-total-count']) });
        });
        response.on('error', reject);
      }).on('error', reject);
    });
    clearInterval(sampler);
    assert.equal(status, 200);
    assert.ok(rows >= 100_000, `${rows} rows`);
    assert.equal(totalHeader, String(rows));
    assert.ok(chunked, 'sent as it is read, not as one body');
    // The body is ~8 MB of JSON per 100k rows here; held whole it would be several times that in objects.
    assert.ok(peak - baseline < 64 * 1024 * 1024, `heap grew ${Math.round((peak - baseline) / 1048576)} MB`);
  });
});

async function pick(answer: Promise<{ status: number; body: unknown }>): Promise<[number, unknown]> {
  const { status, body } = await answer;
  return [status, body];
}
