import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { verifyPassword } from '../src/modules/users/user-model.ts';
import { forEachEngine } from './helpers/test-app.ts';

forEachEngine('model rules and integrity on the installation models', (t) => {
  it('generates code keys when absent (numeric max + 1)', async () => {
    const first = await t().call('POST', '/api/3/cliente', { nombre: 'Auto one', cifnif: 'X1' });
    const second = await t().call('POST', '/api/3/clientes', { nombre: 'Auto two', cifnif: 'X2' });
    assert.equal(Number(second.body.codcliente), Number(first.body.codcliente) + 1);
    const supplier = await t().call('POST', '/api/3/proveedor', { nombre: 'Supplier', cifnif: 'S1' });
    assert.equal(supplier.status, 201);
    assert.match(supplier.body.codproveedor, /^\d+$/);
  });

  it('checks values: codes, e-mails, tax percentages, non-negative amounts', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, string>]> = [
      ['cliente', { codcliente: 'BAD CODE', nombre: 'x' }, { codcliente: 'invalid-code' }],
      ['cliente', { nombre: 'x', email: 'nope' }, { email: 'invalid-email' }],
      ['impuesto', { codimpuesto: 'BIG', iva: 150, recargo: 0 }, { iva: 'out-of-range' }],
      ['impuesto', { codimpuesto: 'NEG', iva: 10, recargo: -1 }, { recargo: 'out-of-range' }],
      ['retencion', { codretencion: 'R0', porcentaje: 0.5 }, { porcentaje: 'out-of-range' }],
      ['formapago', { codpago: 'NEG', descripcion: 'x', plazovencimiento: -3 }, { plazovencimiento: 'negative' }],
      ['producto', { referencia: 'NEGPRICE', precio: -1 }, { precio: 'negative' }],
      ['divisa', { coddivisa: 'ZZZ', tasaconv: 0 }, { tasaconv: 'out-of-range' }],
    ];
    for (const [resource, body, fields] of cases) {
      const response = await t().call('POST', `/api/3/${resource}`, body);
      assert.equal(response.status, 422, `${resource} ${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
      for (const [field, reason] of Object.entries(fields)) assert.equal(response.body.fields[field], reason, `${resource}.${field}`);
    }
  });

  it('creates a product with its main variant and keeps reference and price in step both ways', async () => {
    const product = await t().call('POST', '/api/3/producto', { descripcion: 'Widget', precio: 12.5 });
    assert.equal(product.status, 201);
    assert.match(product.body.referencia, /^\d+$/, 'reference generated');
    const variants = async () => (await t().call('GET', `/api/3/variante?filter[idproducto]=${product.body.idproducto}`)).body;
    assert.deepEqual((await variants()).map((v: any) => [v.referencia, v.precio]), [[product.body.referencia, 12.5]]);
    await t().call('PATCH', `/api/3/producto/${product.body.idproducto}`, { referencia: 'WIDGET-1', precio: 14 });
    assert.deepEqual((await variants()).map((v: any) => [v.referencia, v.precio]), [['WIDGET-1', 14]]);
    const main = (await variants())[0];
    await t().call('PATCH', `/api/3/variante/${main.idvariante}`, { precio: 15.25 });
    assert.equal((await t().call('GET', `/api/3/producto/${product.body.idproducto}`)).body.precio, 15.25);
    // A second variant is independent; the main one cannot be deleted alone.
    const extra = await t().call('POST', '/api/3/variante', { idproducto: product.body.idproducto, referencia: 'WIDGET-1-RED', precio: 16 });
    assert.equal(extra.status, 201);
    assert.equal((await t().call('GET', `/api/3/producto/${product.body.idproducto}`)).body.precio, 15.25);
    assert.deepEqual((await t().call('DELETE', `/api/3/variante/${main.idvariante}`)).body.message, 'record-in-use');
    assert.equal((await t().call('DELETE', `/api/3/variante/${extra.body.idvariante}`)).status, 200);
    // A product whose reference is already a variant's is a duplicate; nothing is left behind.
    const clash = await t().call('POST', '/api/3/producto', { referencia: 'WIDGET-1' });
    assert.equal(clash.status, 409);
    assert.equal((await t().call('DELETE', `/api/3/producto/${product.body.idproducto}`)).status, 200);
    assert.deepEqual(await variants(), [], 'variants deleted with their product');
  });

  it('fills creation timestamps and lets clients poll for changes', async () => {
    const before = (await t().call('GET', '/api/3/presupuestocliente?limit=1&sort[creationdate]=DESC')).body;
    assert.deepEqual(before, []);
    const customer = (await t().call('POST', '/api/3/cliente', { nombre: 'Poller', cifnif: 'P1' })).body;
    const doc = (n: string) => ({ codcliente: customer.codcliente, observaciones: `poll ${n}` });
    const a = await t().call('POST', '/api/3/presupuestocliente', doc('1'));
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.match(a.body.creationdate, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const since = a.body.creationdate;
    // Rows written after `since`: back-date the first one so that the poll has something to skip.
    await sql`UPDATE presupuestoscli SET creationdate = ${'2020-01-01 00:00:00'} WHERE idpresupuesto = ${a.body.idpresupuesto}`.execute(t().app.ctx.database.kysely);
    const b = await t().call('POST', '/api/3/presupuestocliente', doc('2'));
    const polled = await t().call('GET', `/api/3/presupuestoclientes?filter[creationdate_gte]=${encodeURIComponent(since)}&sort[fecha]=DESC`);
    assert.deepEqual(polled.body.map((d: any) => d.idpresupuesto), [b.body.idpresupuesto]);
    assert.equal((await t().call('GET', '/api/3/presupuestocliente?filter[creationdate_gt]=2019-12-31')).body.length, 2);
    assert.equal((await t().call('PATCH', `/api/3/presupuestocliente/${b.body.idpresupuesto}`, { creationdate: '2020-01-01' })).status, 422, 'read-only');
  });

  it('stores user passwords hashed and never returns them', async () => {
    const created = await t().call('POST', '/api/3/user', { nick: 'maria', password: 'correct horse battery' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const texts = [
      JSON.stringify(created.body),
      (await t().request({ method: 'GET', url: '/api/3/user/maria' })).body,
      (await t().request({ method: 'GET', url: '/api/3/users' })).body,
      (await t().request({ method: 'GET', url: '/api/3/user/schema' })).body,
    ];
    for (const text of texts) for (const hidden of ['password', 'logkey', 'two_factor_secret_key']) assert.ok(!text.includes(`"${hidden}"`), hidden);
    assert.equal((await t().call('GET', '/api/3/user?filter[password_notnull]=1')).status, 400);
    const row = await t().app.ctx.database.kysely.selectFrom('users').select('password').where('nick', '=', 'maria').executeTakeFirstOrThrow();
    assert.ok(!String(row.password).includes('correct horse'));
    assert.equal(verifyPassword('correct horse battery', String(row.password)), true);
    assert.equal(verifyPassword('wrong', String(row.password)), false);
  });

  it('applies RESTRICT, CASCADE and SET NULL on the real foreign keys', async () => {
    // RESTRICT: a tax used by a tax zone cannot go.
    await t().call('POST', '/api/3/impuesto', { codimpuesto: 'ZONED', iva: 7, recargo: 0 });
    const zone = await t().call('POST', '/api/3/impuestozona', { codimpuesto: 'ZONED', codpais: 'ESP' });
    assert.equal(zone.status, 201, JSON.stringify(zone.body));
    assert.deepEqual((await t().call('DELETE', '/api/3/impuesto/ZONED')).body, { status: 'error', message: 'record-in-use' });
    assert.equal((await t().call('GET', '/api/3/impuesto/ZONED')).status, 200);
    // CASCADE: a country takes its provinces with it.
    await t().call('POST', '/api/3/pais', { codpais: 'XXA', codiso: 'XA', nombre: 'Testland' });
    await t().call('POST', '/api/3/provincia', { codpais: 'XXA', provincia: 'North' });
    await t().call('POST', '/api/3/provincia', { codpais: 'XXA', provincia: 'South' });
    assert.equal((await t().call('DELETE', '/api/3/pais/XXA')).status, 200);
    assert.equal((await t().call('GET', '/api/3/provincia?filter[codpais]=XXA')).headers['x-total-count'], '0');
    // SET NULL: deleting a customer group leaves its customers without a group.
    await t().call('POST', '/api/3/grupoclientes', { codgrupo: 'VIP', nombre: 'VIP' });
    const member = await t().call('POST', '/api/3/cliente', { nombre: 'Member', codgrupo: 'VIP' });
    assert.equal(member.body.codgrupo, 'VIP');
    assert.equal((await t().call('DELETE', '/api/3/grupoclientes/VIP')).status, 200);
    assert.equal((await t().call('GET', `/api/3/cliente/${member.body.codcliente}`)).body.codgrupo, null);
    // A reference to nothing is refused.
    assert.equal((await t().call('POST', '/api/3/cliente', { nombre: 'Lost', codgrupo: 'NOPE' })).body.message, 'invalid-reference');
  });
});
