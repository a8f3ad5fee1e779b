import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { forEachEngine, GLOBAL_KEY, startTestApp } from './helpers/test-app.ts';

/**
 * What operators and load balancers rely on: `/health` and `/ready` outside the API (no key, API
 * switch or not), `X-Request-Id` on every answer, and one structured log line per request that
 * never holds a token or a query value.
 */
const lines: Array<Record<string, any>> = [];
const stream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});


forEachEngine('operations: health, readiness, request ids and logs', (t) => {
  it('answers /health and /ready without a key, also with the API switched off', async () => {
    for (const [url, body] of [['/health', { status: 'ok' }], ['/ready', { status: 'ready' }]] as const) {
      const answer = await t().request({ method: 'GET', url, key: null });
      assert.deepEqual([answer.statusCode, answer.json()], [200, body], url);
    }
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { enable_api: false } })).status, 200);
    try {
      assert.equal((await t().request({ method: 'GET', url: '/api/3/cliente' })).statusCode, 403);
      assert.equal((await t().request({ method: 'GET', url: '/ready', key: null })).statusCode, 200);
    } finally {
      const { ctx } = t().app;
      await ctx.database.kysely.updateTable('settings').set({ properties: JSON.stringify({ ...(await ctx.settings()), enable_api: true }) }).where('name', '=', 'default').execute();
      await t().app.runJob('shared-state');
    }
    assert.equal((await t().request({ method: 'GET', url: '/api/3/cliente' })).statusCode, 200);
  });

  it('is not ready once its database is gone, nor while it shuts down', async () => {
    const other = await startTestApp(t().engine, { url: t().databaseUrl });
    try {
      assert.equal((await other.request({ method: 'GET', url: '/ready', key: null })).statusCode, 200);
      await other.app.ctx.database.close();
      const gone = await other.request({ method: 'GET', url: '/ready', key: null });
      assert.deepEqual([gone.statusCode, gone.json()], [503, { status: 'unavailable', reason: 'database' }]);
      assert.equal((await other.request({ method: 'GET', url: '/health', key: null })).statusCode, 200);
    } finally {
      await other.app.close().catch(() => {});
    }
  });

  it('logs one line per request with its id, and takes a sane id from the client', async () => {
    const logged = await startTestApp(t().engine, { url: t().databaseUrl, logger: { level: 'info', stream } });
    try {
      lines.length = 0;
      const given = await logged.request({ method: 'GET', url: '/api/3/cliente?filter[nombre_like]=secretvalue&limit=5', headers: { 'x-request-id': 'client-id.42:a_b' } });
      assert.equal(given.statusCode, 200);
      assert.equal(given.headers['x-request-id'], 'client-id.42:a_b');
      const insane = await logged.request({ method: 'GET', url: '/api/3/nothing', headers: { 'x-request-id': 'has spaces and "quotes"' } });
      assert.equal(insane.statusCode, 404);
      assert.match(String(insane.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      const anonymous = await logged.request({ method: 'GET', url: '/api/3/cliente', key: 'wrong-token-0123456789' });
      assert.equal(anonymous.statusCode, 401);

      const requests = lines.filter((line) => line.msg === 'request');
      assert.equal(requests.length, 3, JSON.stringify(lines));
      const [first, second, third] = requests;
      assert.deepEqual(
        { reqId: first!.reqId, method: first!.method, path: first!.path, status: first!.status, key: first!.key, level: first!.level },
        { reqId: 'client-id.42:a_b', method: 'GET', path: '/api/3/cliente', status: 200, key: 'global', level: 30 },
      );
      assert.equal(typeof first!.ms, 'number');
      assert.deepEqual([second!.reqId, second!.status], [insane.headers['x-request-id'], 404]);
      assert.deepEqual([third!.status, third!.key], [401, undefined]);
      const text = JSON.stringify(lines);
      for (const secret of ['secretvalue', GLOBAL_KEY, 'wrong-token-0123456789']) assert.ok(!text.includes(secret), secret);
    } finally {
      await logged.app.close();
    }
  });
});
