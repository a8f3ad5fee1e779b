import { AsyncLocalStorage } from 'node:async_hooks';
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * Chosen fields and embedded records on reads (docs/query-syntax.md) on every engine: `fields`
 * picks visible fields (unknown ones refused), `expand=lineas` and `expand=cliente` embed a page's
 * lines and customers in one read each, whatever the page's size; ETags differ per representation;
 * the facturascripts profile reads as before.
 */
/** Marks the request being measured: a job that runs meanwhile (a timer's) is not its statements. */
const measured = new AsyncLocalStorage<symbol>();

async function statementsOf(t: TestApp, url: string): Promise<{ count: number; body: any }> {
  const { counter } = t.app.ctx.database;
  const mark = Symbol(url);
  let count = 0;
  counter.observer = () => void (measured.getStore() === mark && count++);
  try {
    const answer = await measured.run(mark, () => t.call('GET', url));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return { count, body: answer.body };
  } finally {
    counter.observer = undefined;
  }
}

forEachEngine('chosen fields and embedded records', (t) => {
  before(async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'RV1', nombre: 'Lectora', cifnif: '12345678Z' })).status, 201);
    for (let i = 0; i < 8; i++) {
      const lines = Array.from({ length: 1 + (i % 3) }, (_, n) => ({ descripcion: `Línea ${n}`, cantidad: 1, pvpunitario: 10 + n, codimpuesto: 'IVA21' }));
      assert.equal((await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'RV1', lineas: lines })).status, 200);
    }
  });

  it('answers only the fields asked for, the key always, and refuses an unknown field', async () => {
    const list = await t().call('GET', '/api/3/presupuestoclientes?filter[codcliente]=RV1&fields=codigo,total&limit=3');
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(Object.keys(list.body[0]).sort(), ['codigo', 'idpresupuesto', 'total']);
    const one = await t().call('GET', `/api/3/presupuestoclientes/${list.body[0].idpresupuesto}?fields=nombrecliente`);
    assert.deepEqual(one.body, { idpresupuesto: list.body[0].idpresupuesto, nombrecliente: 'Lectora' });
    const customer = await t().call('GET', '/api/3/clientes/RV1?fields=nombre,cifnif');
    assert.deepEqual(customer.body, { codcliente: 'RV1', nombre: 'Lectora', cifnif: '12345678Z' });
    for (const url of ['/api/3/presupuestoclientes?fields=total,nope', '/api/3/clientes/RV1?fields=password', '/api/3/presupuestoclientes?expand=pagos', '/api/3/clientes?expand=lineas']) {
      const refused = await t().call('GET', url);
      assert.equal(refused.status, 400, `${url}: ${JSON.stringify(refused.body)}`);
      assert.match(refused.body.message, /^invalid-(field|expand)$/);
    }
    // Another representation, another tag; the same one revalidates.
    const full = await t().request({ method: 'GET', url: `/api/3/presupuestoclientes/${list.body[0].idpresupuesto}` });
    const some = await t().request({ method: 'GET', url: `/api/3/presupuestoclientes/${list.body[0].idpresupuesto}?fields=total` });
    assert.notEqual(full.headers.etag, some.headers.etag);
    const again = await t().request({ method: 'GET', url: `/api/3/presupuestoclientes/${list.body[0].idpresupuesto}?fields=total`, headers: { 'if-none-match': String(some.headers.etag) } });
    assert.equal(again.statusCode, 304);
    const swapped = await t().request({ method: 'GET', url: `/api/3/presupuestoclientes/${list.body[0].idpresupuesto}?fields=codigo,total` });
    const ordered = await t().request({ method: 'GET', url: `/api/3/presupuestoclientes/${list.body[0].idpresupuesto}?fields=total,codigo` });
    assert.equal(swapped.headers.etag, ordered.headers.etag, 'the same representation, the same tag');
    // A tag read with fields names the record's version: a write may be conditioned on it.
    const tagged = await t().request({ method: 'GET', url: '/api/3/clientes/RV1?fields=nombre' });
    const write = await t().request({ method: 'PATCH', url: '/api/3/clientes/RV1', payload: JSON.stringify({ observaciones: 'condicionada' }), headers: { 'content-type': 'application/json', 'if-match': String(tagged.headers.etag) } });
    assert.equal(write.statusCode, 200, write.body);
    for (const url of ['/api/3/clientes/RV1?fields=', '/api/3/clientes?fields[]=nombre', '/api/3/presupuestoclientes?expand[]=lineas']) {
      assert.equal((await t().call('GET', url)).status, 400, url);
    }
    assert.equal((await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'RV1', lineas: [{ descripcion: 'x', pvpunitario: 5, codimpuesto: 'IVA21' }] })).status, 200);
    const chosen = await t().call('GET', '/api/3/facturaclientes?limit=1&fields=codigo,verifactu');
    assert.equal(chosen.status, 200, 'what a presenter adds may be chosen too');
    // `verifactu` shows only where the company keeps records (not here): the rest is cut to what was asked.
    assert.deepEqual(Object.keys(chosen.body[0]).sort(), ['codigo', 'idfactura']);
  });

  it('embeds the lines and the customer of a page in one read each, whatever the page\'s size', async () => {
    // The page's total is counted once and kept: asked for first, so that no measure includes it.
    await statementsOf(t(), '/api/3/presupuestoclientes?filter[codcliente]=RV1&sort[idpresupuesto]=ASC&limit=1');
    const small = await statementsOf(t(), '/api/3/presupuestoclientes?filter[codcliente]=RV1&sort[idpresupuesto]=ASC&limit=2&expand=lineas,cliente');
    const large = await statementsOf(t(), '/api/3/presupuestoclientes?filter[codcliente]=RV1&sort[idpresupuesto]=ASC&limit=8&expand=lineas,cliente');
    const plain = await statementsOf(t(), '/api/3/presupuestoclientes?filter[codcliente]=RV1&sort[idpresupuesto]=ASC&limit=8');
    assert.ok(small.count >= 3, `the page, its lines and its customers read (${small.count} statements)`);
    assert.equal(large.count, small.count, 'the same statements for 8 documents as for 2');
    assert.ok(large.count <= plain.count + 2, `one read per expansion (${large.count} against ${plain.count})`);
    assert.deepEqual(large.body.map((doc: any) => doc.lineas.length), [1, 2, 3, 1, 2, 3, 1, 2]);
    assert.deepEqual(large.body[1].lineas.map((line: any) => [line.descripcion, line.pvpunitario]), [['Línea 0', 10], ['Línea 1', 11]]);
    assert.ok(large.body[1].lineas.every((line: any) => line.idpresupuesto === large.body[1].idpresupuesto));
    assert.equal(large.body[0].cliente.nombre, 'Lectora');
    // With fields, the expansions stay; one document the same way.
    const picked = (await t().call('GET', '/api/3/presupuestoclientes?filter[codcliente]=RV1&limit=1&fields=total,lineas&expand=lineas')).body[0];
    assert.deepEqual(Object.keys(picked).sort(), ['idpresupuesto', 'lineas', 'total']);
    const one = await t().request({ method: 'GET', url: `/api/3/presupuestoclientes/${picked.idpresupuesto}?expand=lineas` });
    assert.equal(JSON.parse(one.body).lineas.length, picked.lineas.length);
    // A line changed changes the expanded answer's tag.
    const line = picked.lineas[0];
    assert.equal((await t().call('PATCH', `/api/3/lineapresupuestoclientes/${line.idlinea}`, { descripcion: 'Cambiada' })).status, 200);
    const changed = await t().request({ method: 'GET', url: `/api/3/presupuestoclientes/${picked.idpresupuesto}?expand=lineas`, headers: { 'if-none-match': String(one.headers.etag) } });
    assert.equal(changed.statusCode, 200);
    assert.equal(JSON.parse(changed.body).lineas[0].descripcion, 'Cambiada');
  });

  it('embeds only what the key may read on its own', async () => {
    const key = (await t().call('POST', '/api/3/apikey', { description: 'quotes only', fullaccess: false, enabled: true })).body;
    assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource: 'presupuestocliente', allowget: true, allowpost: false, allowput: false, allowdelete: false })).status, 201);
    assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource: 'lineapresupuestocliente', allowget: true, allowpost: false, allowput: false, allowdelete: false })).status, 201);
    const lines = await t().call('GET', '/api/3/presupuestoclientes?limit=1&expand=lineas', undefined, key.apikey);
    assert.equal(lines.status, 200, JSON.stringify(lines.body));
    assert.ok(lines.body[0].lineas.length > 0, 'the lines are embedded');
    const customer = await t().call('GET', '/api/3/presupuestoclientes?limit=1&expand=cliente', undefined, key.apikey);
    assert.deepEqual([customer.status, customer.body.message ?? customer.body.error], [403, 'forbidden'], JSON.stringify(customer.body));
  });

  it('reads as before for the facturascripts profile: both parameters ignored', async () => {
    const legacy = (await t().call('POST', '/api/3/apikey', { description: 'legacy', fullaccess: true, enabled: true, profile: 'facturascripts' })).body.apikey;
    const answer = await t().call('GET', '/api/3/presupuestoclientes?filter[codcliente]=RV1&limit=1&fields=total&expand=lineas', undefined, legacy);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.ok(!('lineas' in answer.body[0]) && 'codigo' in answer.body[0], 'the whole record, nothing embedded');
  });
});
