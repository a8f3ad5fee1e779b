import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { withoutModules } from '../src/modules/index.ts';
import { forEachEngine } from './helpers/test-app.ts';

/** 12 products with known values; the suite checks each operator against an in-memory filter. */
const PRODUCTS = Array.from({ length: 12 }, (_, i) => ({
  referencia: `P${String(i + 1).padStart(2, '0')}`,
  descripcion: i % 3 === 0 ? `Blue Widget ${i}` : i % 3 === 1 ? `red gadget ${i}` : null,
  precio: [5, 10, 10, 20, 7.5, 10, 99.99, 0, 20, 5, 10, 3][i]!,
  sevende: i % 2 === 0,
  tipo: i < 4 ? 'Normal' : i < 8 ? 'Servicio' : '100%_off',
}));

forEachEngine('list query: filters, operators, sort, paging', (t) => {
  before(async () => {
    for (const product of PRODUCTS) {
      const response = await t().call('POST', '/api/3/producto', product);
      assert.equal(response.status, 201, JSON.stringify(response.body));
    }
  });

  const refs = async (query: string) => {
    const response = await t().call('GET', `/api/3/producto?${query}`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return { refs: response.body.map((p: { referencia: string }) => p.referencia), total: Number(response.headers['x-total-count']) };
  };
  const expectRefs = (predicate: (p: (typeof PRODUCTS)[number]) => boolean) =>
    PRODUCTS.filter(predicate).map((p) => p.referencia);

  it('applies every operator of the spec and the reference', async () => {
    const cases: Array<[string, (p: (typeof PRODUCTS)[number]) => boolean]> = [
      ['filter[precio]=10', (p) => p.precio === 10],
      ['filter[precio_gt]=10', (p) => p.precio > 10],
      ['filter[precio_gte]=10', (p) => p.precio >= 10],
      ['filter[precio_lt]=10', (p) => p.precio < 10],
      ['filter[precio_lte]=7.5', (p) => p.precio <= 7.5],
      ['filter[precio_neq]=10', (p) => p.precio !== 10],
      ['filter[descripcion_like]=WIDGET', (p) => (p.descripcion ?? '').toLowerCase().includes('widget')],
      ['filter[descripcion_null]=', (p) => p.descripcion === null],
      ['filter[descripcion_notnull]=', (p) => p.descripcion !== null],
      ['filter[descripcion_is]=', (p) => p.descripcion === null],
      ['filter[descripcion_isnot]=', (p) => p.descripcion !== null],
      ['filter[sevende]=true', (p) => p.sevende],
      ['filter[sevende]=0', (p) => !p.sevende],
      ['filter[tipo_like]=' + encodeURIComponent('%_'), (p) => p.tipo.includes('%_')],
      ['filter[precio_like]=99', (p) => String(p.precio).includes('99')],
      ['filter[precio_gte]=5&filter[precio_lt]=20', (p) => p.precio >= 5 && p.precio < 20],
    ];
    for (const [query, predicate] of cases) {
      const result = await refs(`${query}&limit=100`);
      assert.deepEqual(result.refs, expectRefs(predicate), query);
      assert.equal(result.total, result.refs.length, query);
    }
  });

  it('binds the values of each call when a query shape is reused (compiled query cache)', async () => {
    for (const value of [10, 20, 5, 10, 99.99]) {
      assert.deepEqual((await refs(`filter[precio]=${value}&filter[descripcion_like]=g&operation[descripcion_like]=OR`)).refs,
        expectRefs((p) => p.precio === value || (p.descripcion ?? '').toLowerCase().includes('g')), String(value));
    }
    for (const word of ['widget', 'gadget', 'nothing']) {
      assert.deepEqual((await refs(`filter[descripcion_like]=${word}`)).refs, expectRefs((p) => (p.descripcion ?? '').toLowerCase().includes(word)));
    }
  });

  it('combines clauses with operation[key]=OR, AND binding tighter', async () => {
    const q = 'filter[tipo]=Normal&filter[sevende]=1&filter[precio_gt]=50&operation[precio_gt]=OR&limit=100';
    assert.deepEqual((await refs(q)).refs, expectRefs((p) => (p.tipo === 'Normal' && p.sevende) || p.precio > 50));
    const and = 'filter[tipo]=Normal&filter[sevende]=1&operation[sevende]=and';
    assert.deepEqual((await refs(and)).refs, expectRefs((p) => p.tipo === 'Normal' && p.sevende));
  });

  it('sorts by several keys in order, the primary key breaking ties', async () => {
    const result = await refs('sort[precio]=DESC&sort[tipo]=asc&limit=100');
    const expected = [...PRODUCTS]
      .map((p, i) => ({ ...p, id: i + 1 }))
      .sort((a, b) => b.precio - a.precio || (a.tipo < b.tipo ? -1 : a.tipo > b.tipo ? 1 : 0) || a.id - b.id)
      .map((p) => p.referencia);
    assert.deepEqual(result.refs, expected);
  });

  it('pages with limit/offset without repeating or skipping rows, X-Total-Count giving the whole match', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 12; offset += 5) {
      const page = await refs(`sort[precio]=ASC&limit=5&offset=${offset}`);
      assert.equal(page.total, 12);
      seen.push(...page.refs);
    }
    assert.equal(seen.length, 12);
    assert.equal(new Set(seen).size, 12);
    const defaultPage = await t().call('GET', '/api/3/producto');
    assert.equal(defaultPage.body.length, 12);
    assert.equal(defaultPage.headers['x-total-count'], '12');
    assert.deepEqual(
      defaultPage.body.map((p: { idproducto: number }) => p.idproducto),
      Array.from({ length: 12 }, (_, i) => i + 1),
      'default order is the primary key',
    );
  });

  it('ignores parameters that are not filter, operation, sort, limit or offset', async () => {
    const result = await refs('foo=bar&page=2&filter[tipo]=Normal');
    assert.deepEqual(result.refs, expectRefs((p) => p.tipo === 'Normal'));
  });

  it('refuses unknown fields, operators, values and paging with 400 naming the parameter', async () => {
    const cases: Array<[string, string, string]> = [
      ['filter[nope]=1', 'invalid-filter-field', 'filter[nope]'],
      ['filter[precio_between]=1', 'invalid-filter-operator', 'filter[precio_between]'],
      ['filter[precio]=abc', 'invalid-filter-value', 'filter[precio]'],
      ['filter[sevende]=perhaps', 'invalid-filter-value', 'filter[sevende]'],
      ['filter[fechaalta_gt]=yesterday', 'invalid-filter-value', 'filter[fechaalta_gt]'],
      ['sort[nope]=ASC', 'invalid-sort-field', 'sort[nope]'],
      ['sort[precio]=UP', 'invalid-sort-direction', 'sort[precio]'],
      ['operation[precio]=OR', 'invalid-operation', 'operation[precio]'],
      ['filter[precio]=1&operation[precio]=XOR', 'invalid-operation', 'operation[precio]'],
      ['filter[precio]=1&filter[precio]=2', 'duplicate-parameter', 'filter[precio]'],
      ['filter[a][b]=1', 'invalid-filter-field', 'filter[a][b]'],
    ];
    for (const [query, code, parameter] of cases) {
      const response = await t().call('GET', `/api/3/producto?${query}`);
      assert.equal(response.status, 400, query);
      assert.deepEqual(response.body, { status: 'error', message: code, parameter }, query);
    }
    for (const query of ['limit=0', 'limit=-1', 'limit=abc', 'limit=1001', 'limit=2.5']) {
      const response = await t().call('GET', `/api/3/producto?${query}`);
      assert.deepEqual([response.status, response.body.message], [400, 'invalid-limit'], query);
    }
    for (const query of ['offset=-1', 'offset=x']) {
      const response = await t().call('GET', `/api/3/producto?${query}`);
      assert.deepEqual([response.status, response.body.message], [400, 'invalid-offset'], query);
    }
  });

  it('never lets field names carry SQL, and binds values', async () => {
    const attacks = [
      ['filter[precio); DROP TABLE productos; --]=1', 'invalid-filter-field'],
      ['filter[1=1 OR referencia]=x', 'invalid-filter-field'],
      ['sort[precio; DELETE FROM productos]=ASC', 'invalid-sort-field'],
      ['sort[productos.precio]=ASC', 'invalid-sort-field'],
      ['filter[apikey]=x', 'invalid-filter-field'],
    ];
    for (const [query, code] of attacks) {
      const response = await t().call('GET', `/api/3/producto?${encodeURI(query!)}`);
      assert.deepEqual([response.status, response.body.message], [400, code], query);
    }
    const injection = await refs(`filter[referencia]=${encodeURIComponent("P01' OR '1'='1")}`);
    assert.deepEqual(injection.refs, []);
    const like = await refs(`filter[descripcion_like]=${encodeURIComponent("' OR 1=1 --")}`);
    assert.deepEqual(like.refs, []);
    assert.equal((await refs('limit=100')).total, 12, 'table intact');
    const bodyAttack = await t().call('POST', '/api/3/producto', { referencia: 'X', 'precio) VALUES (1); --': 1 });
    assert.equal(bodyAttack.status, 422);
  });

  it('keeps hidden fields out of filters and sorts', async () => {
    for (const query of ['filter[apikey]=abc', 'filter[apikey_like]=a', 'sort[apikey]=ASC']) {
      const response = await t().call('GET', `/api/3/apikey?${query}`);
      assert.equal(response.status, 400, query);
    }
  });
}, { modules: withoutModules('installation') });
