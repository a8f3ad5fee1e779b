import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * Keyset paging (src/query/list-cursor.ts): a full page links to the next with `Link: rel="next"`;
 * following the cursors walks the whole list in order, duplicate sort values included, without
 * repeating or skipping a row, even when rows are added on the way.
 */
const NAMES = ['Dup Beta', 'Dup Alpha', 'Dup Gamma'];

async function walk(t: TestApp, first: string): Promise<{ codes: string[]; pages: number; totals: Set<string> }> {
  const codes: string[] = [];
  const totals = new Set<string>();
  let url: string | undefined = first;
  let pages = 0;
  while (url) {
    const answer = await t.call('GET', url);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    codes.push(...(answer.body as Array<{ codcliente: string }>).map((row) => row.codcliente));
    totals.add(String(answer.headers['x-total-count']));
    pages++;
    const link = answer.headers.link as string | undefined;
    url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    assert.ok(pages < 50);
  }
  return { codes, pages, totals };
}

forEachEngine('list cursors', (t) => {
  before(async () => {
    for (let i = 1; i <= 23; i++) {
      const answer = await t().call('POST', '/api/3/cliente', { codcliente: `K${String(i).padStart(2, '0')}`, nombre: NAMES[i % 3], ...(i % 2 ? { razonsocial: `Company ${i}` } : {}) });
      assert.equal(answer.status, 201);
    }
  });

  for (const direction of ['ASC', 'DESC']) {
    it(`walks a sort with duplicate values by cursor, ${direction}, as one page would list it`, async () => {
      const query = `filter[nombre_like]=dup&sort[nombre]=${direction}`;
      const whole = (await t().call('GET', `/api/3/cliente?${query}&limit=100`)).body.map((row: { codcliente: string }) => row.codcliente);
      assert.equal(whole.length, 23);
      const walked = await walk(t(), `/api/3/cliente?${query}&limit=5`);
      assert.deepEqual(walked.codes, whole);
      assert.equal(walked.pages, 5);
      assert.deepEqual([...walked.totals], ['23']);
    });
  }

  it('neither repeats nor skips a row when rows are added between pages', async () => {
    const first = await t().call('GET', '/api/3/cliente?filter[nombre_like]=dup&sort[nombre]=ASC&limit=10');
    const seen: string[] = first.body.map((row: { codcliente: string }) => row.codcliente);
    // One sorts before the page just read, one after it.
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'K00', nombre: 'Dup Aaron' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'K99', nombre: 'Dup Zulu' })).status, 201);
    const rest = await walk(t(), /<([^>]+)>/.exec(first.headers.link as string)![1]!);
    const all = [...seen, ...rest.codes];
    assert.equal(new Set(all).size, all.length, 'no row twice');
    assert.deepEqual(all.filter((code) => code !== 'K99').sort(), Array.from({ length: 23 }, (_, i) => `K${String(i + 1).padStart(2, '0')}`));
    assert.ok(all.includes('K99') && !all.includes('K00'));
    for (const code of ['K00', 'K99']) assert.equal((await t().call('DELETE', `/api/3/cliente/${code}`)).status, 200);
  });

  it('pages a nullable sort by offset, and refuses cursors that do not fit', async () => {
    const nullable = await t().call('GET', '/api/3/cliente?filter[nombre_like]=dup&sort[razonsocial]=ASC&limit=5');
    assert.match(String(nullable.headers.link), /^<\/api\/3\/cliente\?filter%5Bnombre_like%5D=dup&sort%5Brazonsocial%5D=ASC&limit=5&offset=5>; rel="next"$/);
    const walked = await walk(t(), '/api/3/cliente?filter[nombre_like]=dup&sort[razonsocial]=ASC&limit=5');
    assert.equal(new Set(walked.codes).size, 23);
    // A last page that is not full links nowhere.
    assert.equal((await t().call('GET', '/api/3/cliente?filter[nombre_like]=dup&limit=100')).headers.link, undefined);

    const page = await t().call('GET', '/api/3/cliente?sort[nombre]=ASC&limit=5');
    const cursor = new URLSearchParams(/\?(.*)>/.exec(page.headers.link as string)![1]).get('cursor')!;
    const bad: Array<[string, string | undefined]> = [
      [`sort[nombre]=DESC&cursor=${cursor}`, undefined],
      [`sort[nombre]=ASC&cursor=${cursor}&offset=5`, 'cursor-with-offset'],
      [`sort[razonsocial]=ASC&cursor=${cursor}`, 'sort-not-pageable'],
      ['cursor=not-a-cursor', undefined],
      [`cursor=${Buffer.from('["k1","codcliente:asc",[42]]').toString('base64url')}`, undefined],
    ];
    for (const [query, reason] of bad) {
      const answer = await t().call('GET', `/api/3/cliente?${query}`);
      assert.deepEqual([answer.status, answer.body.message, answer.body.reason], [400, 'invalid-cursor', reason], query);
    }
    assert.equal((await t().call('GET', `/api/3/cliente?sort[nombre]=ASC&cursor=${cursor}`)).status, 200);
  });
});
