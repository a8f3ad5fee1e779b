import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * Batches (docs/batches.md) on every engine: operations answered in order, each as its own
 * request; atomic batches committing together or rolling back whole (numbering included); the
 * limit of 100; a whole batch replayed by its Idempotency-Key; rules and the rate limit per operation.
 */
forEachEngine('batches', (t) => {
  const invoice = (codcliente: string) => ({ method: 'POST', path: '/api/3/crearFacturaCliente', body: { codcliente, lineas: [{ descripcion: 'Servicio', cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }] } });
  const customer = (codcliente: string, nombre = `Cliente ${codcliente}`) => ({ method: 'POST', path: '/api/3/clientes', body: { codcliente, nombre, cifnif: 'B85626240' } });

  it('answers each operation in order, successes and failures alike, each standing alone', async () => {
    const answer = await t().call('POST', '/api/3/batch', {
      operations: [
        customer('BT1'),
        customer('BT1', 'Otra vez'),
        { method: 'GET', path: '/api/3/clientes/BT1' },
        { method: 'PATCH', path: '/api/3/clientes/BT1', body: { nombre: 'Renombrado' } },
        { method: 'GET', path: '/api/3/nosuchthing' },
        invoice('BT1'),
      ],
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { results } = answer.body;
    assert.deepEqual(results.map((result: any) => result.status), [201, 409, 200, 200, 404, 200]);
    assert.equal(results[1].body.message, 'duplicate-record');
    assert.equal(results[2].body.codcliente, 'BT1');
    assert.ok(results[2].headers.etag, 'an operation\'s ETag comes with its answer');
    assert.equal(results[5].body.doc.total, 121);
    assert.equal((await t().call('GET', '/api/3/clientes/BT1')).body.nombre, 'Renombrado');
  });

  it('commits an atomic batch together, each operation reading what the earlier ones wrote', async () => {
    const seen: string[] = [];
    const off = t().app.ctx.events.on('document.created', (e) => void seen.push(e.type));
    const answer = await t().call('POST', '/api/3/batch', { atomic: true, operations: [customer('BT2'), invoice('BT2'), { method: 'GET', path: '/api/3/facturaclientes?filter[codcliente]=BT2' }] });
    off();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(seen, ['FacturaCliente'], 'the event follows the batch\'s commit, once');
    assert.deepEqual(answer.body.results.map((result: any) => result.status), [201, 200, 200]);
    assert.equal(answer.body.results[2].body.length, 1, 'the list inside the batch sees the invoice it created');
    const stored = await t().call('GET', '/api/3/facturaclientes?filter[codcliente]=BT2');
    assert.equal(stored.body.length, 1);
    assert.equal(stored.body[0].total, 121);
    // Its receipts, entry and customer risk went with it.
    assert.equal((await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${stored.body[0].idfactura}`)).body.length, 1);
  });

  it('rolls an atomic batch back whole at its first failure, naming it: records, numbers and receipts', async () => {
    const before = (await t().call('GET', '/api/3/facturaclientes?sort[idfactura]=DESC&limit=1')).body[0];
    const seen: string[] = [];
    const off = t().app.ctx.events.on('document.created', (e) => void seen.push(e.type));
    const feedBefore = (await t().call('GET', '/api/3/events?latest=1')).body.next;
    const answer = await t().call('POST', '/api/3/batch', {
      atomic: true,
      operations: [customer('BT3'), invoice('BT3'), { method: 'POST', path: '/api/3/formapagos', body: { codpago: 'BTX', descripcion: 'x', plazovencimiento: 'pronto' } }, customer('BT4')],
    });
    off();
    assert.deepEqual(seen, [], 'no event for work rolled back');
    assert.deepEqual((await t().call('GET', `/api/3/events?after=${encodeURIComponent(feedBefore)}`)).body.events, [], 'nor in the change feed');
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.equal(answer.body.message, 'batch-rolled-back');
    assert.equal(answer.body.index, 2);
    assert.deepEqual(answer.body.results.map((result: any) => result.status), [201, 200, 422], 'answers up to the failed one, which is last');
    assert.ok(answer.body.results[2].body.fields.plazovencimiento);
    assert.equal((await t().call('GET', '/api/3/clientes/BT3')).status, 404);
    assert.equal((await t().call('GET', '/api/3/clientes/BT4')).status, 404, 'nothing after the failure ran');
    assert.equal((await t().call('GET', '/api/3/facturaclientes?filter[codcliente]=BT3')).body.length, 0);
    // The number the rolled-back invoice took is free again: the next invoice takes it.
    const next = await t().call('POST', '/api/3/crearFacturaCliente', invoice('BT1').body);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.doc.numero, String(Number(before.numero) + 1));
    assert.equal((await t().call('GET', `/api/3/reciboclientes?filter[codcliente]=BT3`)).body.length, 0);
  });

  it('lets later operations of an atomic batch use the reference data earlier ones wrote, and forgets it on rollback', async () => {
    const withSeries = (codserie: string, codimpuesto: string) => ({ method: 'POST', path: '/api/3/crearFacturaCliente', body: { codcliente: 'BT1', codserie, lineas: [{ descripcion: 'a', cantidad: 1, pvpunitario: 10, codimpuesto }] } });
    const made = await t().call('POST', '/api/3/batch', { atomic: true, operations: [
      { method: 'POST', path: '/api/3/series', body: { codserie: 'BZ', descripcion: 'Lote' } },
      { method: 'POST', path: '/api/3/impuestos', body: { codimpuesto: 'IVA7', descripcion: 'Siete', iva: 7 } },
      withSeries('BZ', 'IVA7'),
    ] });
    assert.deepEqual(made.body.results?.map((result: any) => result.status), [201, 201, 200], JSON.stringify(made.body));
    assert.deepEqual([made.body.results[2].body.doc.codigo.includes('BZ'), made.body.results[2].body.doc.total], [true, 10.7]);
    const undone = await t().call('POST', '/api/3/batch', { atomic: true, operations: [
      { method: 'POST', path: '/api/3/series', body: { codserie: 'BY', descripcion: 'Lote deshecho' } },
      withSeries('BY', 'IVA7'),
      { method: 'GET', path: '/api/3/clientes/NOSUCH' },
    ] });
    assert.deepEqual([undone.status, undone.body.index], [422, 2]);
    assert.equal((await t().call('GET', '/api/3/series/BY')).status, 404);
    const after = await t().call('POST', '/api/3/crearFacturaCliente', withSeries('BY', 'IVA7').body);
    assert.ok(after.status >= 400, `the rolled-back serie is not used afterwards: ${after.status}`);
    assert.ok(JSON.stringify(after.body).includes('codserie'), `refused for its serie: ${JSON.stringify(after.body)}`);
  });

  it('refuses more than 100 operations, a nested batch and a path outside the API, running none', async () => {
    const many = Array.from({ length: 101 }, (_, index) => customer(`BM${index}`));
    const refused = await t().call('POST', '/api/3/batch', { operations: many });
    assert.equal(refused.status, 422);
    assert.deepEqual([refused.body.message, refused.body.fields.operations, refused.body.max], ['validation-failed', 'too-many', 100]);
    assert.equal((await t().call('GET', '/api/3/clientes/BM0')).status, 404);
    const wrong = await t().call('POST', '/api/3/batch', {
      operations: [customer('BM0'), { method: 'POST', path: '/api/3/batch', body: { operations: [] } }, { method: 'GET', path: '/health' }, { method: 'GET', path: '/api/3/clientes', headers: { 'X-Auth-Token': 'other' } }, { method: 'TRACE', path: '/api/3/clientes' }],
    });
    assert.equal(wrong.status, 422);
    assert.deepEqual(wrong.body.fields, { 'operations.1.path': 'nested-batch', 'operations.2.path': 'invalid-path', 'operations.3.headers.X-Auth-Token': 'not-allowed', 'operations.4.method': 'invalid-value' });
    assert.equal((await t().call('GET', '/api/3/clientes/BM0')).status, 404);
    assert.equal((await t().call('POST', '/api/3/batch', { operations: [] })).status, 422);
    // Spelt so that the router would resolve them elsewhere: judged as the router reads them.
    const spelt = await t().call('POST', '/api/3/batch', {
      operations: [{ method: 'GET', path: '/api/3/%62atch' }, { method: 'GET', path: '/api/3/x/%2E%2e/batch' }, { method: 'GET', path: '/api/3/%2e%2e/mcp' }, { method: 'GET', path: '/api/3/clientes/CAFÉ' }],
    });
    assert.deepEqual(spelt.body.fields, { 'operations.0.path': 'nested-batch', 'operations.1.path': 'invalid-path', 'operations.2.path': 'invalid-path' });
  });

  it('replays a whole batch by its Idempotency-Key, and an operation by its own', async () => {
    const send = (body: unknown) => t().request({ method: 'POST', url: '/api/3/batch', headers: { 'idempotency-key': 'batch-one', 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    const body = { atomic: true, operations: [customer('BT5'), invoice('BT5')] };
    const first = await send(body);
    assert.equal(first.statusCode, 200, first.body);
    const again = await send(body);
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body, 'the same answer, byte for byte');
    assert.equal((await t().call('GET', '/api/3/facturaclientes?filter[codcliente]=BT5')).body.length, 1, 'written once');
    assert.equal((await send({ operations: [customer('BT6')] })).statusCode, 422, 'the key with another batch');

    // An operation's own key: the second batch replays it instead of creating another invoice.
    const keyed = { ...invoice('BT5'), headers: { 'Idempotency-Key': 'op-one' } };
    const one = await t().call('POST', '/api/3/batch', { operations: [keyed] });
    const two = await t().call('POST', '/api/3/batch', { atomic: true, operations: [keyed] });
    assert.equal(two.body.results[0].headers['idempotent-replayed'], 'true');
    assert.deepEqual(two.body.results[0].body, one.body.results[0].body);
    assert.equal((await t().call('GET', '/api/3/facturaclientes?filter[codcliente]=BT5')).body.length, 2);
  });

  it('checks each operation against the key\'s rules, and counts each against its rate limit', async () => {
    const key = (await t().call('POST', '/api/3/apikey', { description: 'lotes', fullaccess: false, enabled: true, ratelimit: 2 })).body;
    assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource: 'cliente', allowget: true, allowpost: false, allowput: false, allowdelete: false })).status, 201);
    const answer = await t().call('POST', '/api/3/batch', {
      operations: [{ method: 'GET', path: '/api/3/clientes/BT1' }, customer('BT7'), { method: 'GET', path: '/api/3/facturaclientes' }, { method: 'GET', path: '/api/3/clientes/BT1' }, { method: 'GET', path: '/api/3/clientes/BT1' }],
    }, key.apikey);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.results.map((result: any) => result.status), [200, 403, 403, 200, 429], 'refusals are not counted, reads are');
    assert.equal(answer.body.results[4].body.message, 'rate-limited');
    assert.equal((await t().call('GET', '/api/3/clientes/BT7')).status, 404);
    // Atomic: an operation over the limit may pass later, so the batch is 503, its key not kept.
    const sendAtomic = () => t().request({ method: 'POST', url: '/api/3/batch', key: key.apikey, headers: { 'idempotency-key': 'limited', 'content-type': 'application/json' }, payload: JSON.stringify({ atomic: true, operations: [{ method: 'GET', path: '/api/3/clientes/BT1' }] }) });
    const interrupted = await sendAtomic();
    assert.deepEqual([interrupted.statusCode, JSON.parse(interrupted.body).message, JSON.parse(interrupted.body).index], [503, 'batch-interrupted', 0]);
    assert.ok(Number(interrupted.headers['retry-after']) >= 1);
    assert.equal((await sendAtomic()).headers['idempotent-replayed'], undefined, 'not kept: the next try runs again');
  });
});
