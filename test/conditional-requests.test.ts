import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, multipart } from './helpers/test-app.ts';

/**
 * Conditional requests (issue 29, docs/writes.md): a strong ETag on every GET of one record that
 * changes with every change (a document's lines included), 304 for `If-None-Match`, and 412 with
 * the current ETag for a write whose `If-Match` is stale, nothing written; checked under the
 * record's lock, so that of concurrent writers holding one tag exactly one writes.
 */
forEachEngine('conditional requests', (t) => {
  const get = (url: string, headers: Record<string, string> = {}) => t().request({ method: 'GET', url, headers });
  const write = (method: string, url: string, payload: Record<string, unknown> | undefined, etag: string) =>
    t().request({ method: method as 'PATCH', url, ...(payload ? { payload } : {}), headers: { 'if-match': etag } });
  let invoiceId: number;

  before(async () => {
    assert.equal((await t().call('POST', '/api/3/clientes', { codcliente: 'ETAG', nombre: 'Tagged' })).status, 201);
    invoiceId = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'ETAG', lineas: [{ descripcion: 'one', pvpunitario: 5 }] })).body.doc.idfactura;
  });

  it('tags a record, answers 304 while it is current, and changes the tag with every change', async () => {
    const first = await get('/api/3/clientes/ETAG');
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[A-Za-z0-9_-]{20,}"$/);
    assert.equal((await get('/api/3/clientes/ETAG')).headers.etag, etag, 'stable while nothing changes');
    const cached = await get('/api/3/clientes/ETAG', { 'if-none-match': etag });
    assert.deepEqual([cached.statusCode, cached.body, cached.headers.etag], [304, '', etag]);
    assert.equal((await get('/api/3/clientes/ETAG', { 'if-none-match': `"other", W/${etag}` })).statusCode, 304, 'weak comparison, lists');
    assert.equal((await t().call('PATCH', '/api/3/clientes/ETAG', { observaciones: 'changed' })).status, 200);
    const changed = await get('/api/3/clientes/ETAG', { 'if-none-match': etag });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
  });

  it('changes a document\'s tag when one of its lines changes', async () => {
    const etag = (await get(`/api/3/facturaclientes/${invoiceId}`)).headers.etag as string;
    const [line] = (await t().call('GET', `/api/3/lineafacturaclientes?filter[idfactura]=${invoiceId}`)).body;
    assert.equal((await t().call('PATCH', `/api/3/lineafacturaclientes/${line.idlinea}`, { descripcion: 'renamed' })).status, 200);
    assert.notEqual((await get(`/api/3/facturaclientes/${invoiceId}`)).headers.etag, etag);
  });

  it('refuses stale If-Match with 412 and the current tag on PUT, PATCH, DELETE, editar and pagar, writing nothing', async () => {
    const stale = (await get('/api/3/clientes/ETAG')).headers.etag as string;
    assert.equal((await t().call('PATCH', '/api/3/clientes/ETAG', { observaciones: 'meanwhile' })).status, 200);
    const current = (await get('/api/3/clientes/ETAG')).headers.etag as string;
    for (const [method, payload] of [['PATCH', { observaciones: 'blind' }], ['PUT', { observaciones: 'blind' }], ['DELETE', undefined]] as const) {
      const refused = await write(method, '/api/3/clientes/ETAG', payload, stale);
      assert.deepEqual([refused.statusCode, JSON.parse(refused.body).message, refused.headers.etag], [412, 'precondition-failed', current], method);
    }
    assert.equal((await t().call('GET', '/api/3/clientes/ETAG')).body.observaciones, 'meanwhile');
    assert.equal((await write('PATCH', '/api/3/clientes/ETAG', { observaciones: 'seen' }, current)).statusCode, 200);
    assert.equal((await write('PATCH', '/api/3/clientes/ETAG', { observaciones: 'any' }, '*')).statusCode, 200);
    assert.equal((await write('PATCH', '/api/3/clientes/ETAG', { observaciones: 'weak' }, `W/${(await get('/api/3/clientes/ETAG')).headers.etag}`)).statusCode, 412, 'If-Match compares strongly');

    const docStale = (await get(`/api/3/facturaclientes/${invoiceId}`)).headers.etag as string;
    assert.equal((await t().call('PUT', `/api/3/editarFacturaCliente/${invoiceId}`, { observaciones: 'elsewhere' })).status, 200);
    assert.equal((await write('PUT', `/api/3/editarFacturaCliente/${invoiceId}`, { observaciones: 'blind' }, docStale)).statusCode, 412);
    assert.equal((await write('POST', `/api/3/pagarFacturaCliente/${invoiceId}`, { pagada: true }, docStale)).statusCode, 412);
    const doc = (await t().call('GET', `/api/3/facturaclientes/${invoiceId}`)).body;
    assert.deepEqual([doc.observaciones, doc.pagada], ['elsewhere', false]);
    const fresh = (await get(`/api/3/facturaclientes/${invoiceId}`)).headers.etag as string;
    assert.equal((await write('POST', `/api/3/pagarFacturaCliente/${invoiceId}`, { pagada: true }, fresh)).statusCode, 200);
  });

  it('takes If-Match on a file\'s replacement, checked before its bytes change', async () => {
    const form = multipart({}, [{ field: 'files[]', name: 'v1.txt', type: 'text/plain', content: 'one' }]);
    const [file] = (await t().request({ method: 'POST', url: '/api/3/uploadFiles', payload: form.payload, headers: form.headers })).json();
    const etag = (await get(`/api/3/attachedfiles/${file.idfile}`)).headers.etag as string;
    const replace = (tag: string) => {
      const body = multipart({}, [{ field: 'file', name: 'v2.txt', type: 'text/plain', content: 'two' }]);
      return t().request({ method: 'PUT', url: `/api/3/attachedfiles/${file.idfile}`, payload: body.payload, headers: { ...body.headers, 'if-match': tag } });
    };
    const replaced = await replace(etag);
    assert.equal(replaced.statusCode, 200, replaced.body);
    const stale = await replace(etag);
    assert.equal(stale.statusCode, 412);
  });

  it('lets exactly one of 10 concurrent writers holding one tag write', async () => {
    const etag = (await get('/api/3/clientes/ETAG')).headers.etag as string;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => write('PATCH', '/api/3/clientes/ETAG', { observaciones: `writer ${i}` }, etag)));
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, ...Array(9).fill(412)]);
    const winner = answers.findIndex((a) => a.statusCode === 200);
    assert.equal((await t().call('GET', '/api/3/clientes/ETAG')).body.observaciones, `writer ${winner}`);
  });
});
