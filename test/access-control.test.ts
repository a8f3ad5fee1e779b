import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { runCommand } from '../src/cli/main.ts';
import { coreModules } from '../src/modules/index.ts';
import { createCore } from '../src/core.ts';
import { loadConfig } from '../src/config.ts';
import { forEachEngine, GLOBAL_KEY, startTestApp, type TestApp } from './helpers/test-app.ts';
import { scratchDatabase } from './helpers/engines.ts';
import { eventually } from './helpers/eventually.ts';

/** A clock the tests move by hand; each engine's suite starts it at the same instant. */
const START = Date.parse('2026-11-21T10:00:00Z');
const clock = { current: START, now() { return this.current; } };

async function createKey(t: TestApp, body: Record<string, unknown>): Promise<{ id: number; token: string }> {
  const response = await t.call('POST', '/api/3/apikey', body);
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return { id: response.body.id, token: response.body.apikey };
}

forEachEngine(
  'authentication and access rules',
  (t) => {
    before(() => {
      clock.current = START;
    });

    it('accepts the global key and a full-access key in X-Auth-Token or Token; X-Auth-Token wins', async () => {
      const full = await createKey(t(), { description: 'full', fullaccess: true });
      for (const headers of [{ 'x-auth-token': GLOBAL_KEY }, { token: GLOBAL_KEY }, { token: full.token }, { 'x-auth-token': full.token }]) {
        const response = await t().request({ method: 'GET', url: '/api/3/cliente', key: null, headers });
        assert.equal(response.statusCode, 200, JSON.stringify(headers));
      }
      const wins = await t().request({ method: 'GET', url: '/api/3/cliente', key: null, remoteAddress: '192.0.2.201', headers: { 'x-auth-token': 'wrong-token', token: full.token } });
      assert.deepEqual([wins.statusCode, wins.json()], [401, { error: 'auth-token-invalid' }]);
      const other = await t().request({ method: 'GET', url: '/api/3/cliente', key: null, headers: { 'x-auth-token': full.token, token: 'wrong-token' } });
      assert.equal(other.statusCode, 200);
    });

    it('refuses a missing, unknown or disabled key with 401', async () => {
      const key = await createKey(t(), { description: 'soon disabled', fullaccess: true });
      assert.equal((await t().call('GET', '/api/3/cliente', undefined, key.token)).status, 200);
      assert.equal((await t().call('PATCH', `/api/3/apikey/${key.id}`, { enabled: false })).status, 200);
      // The revocation applies on the very next request.
      // Failures come from an address of their own, so that this suite's other tests are not banned.
      const from = (key: string | null) => t().request({ method: 'GET', url: '/api/3/cliente', key, remoteAddress: '192.0.2.202' });
      assert.deepEqual((await from(key.token)).json(), { error: 'auth-token-invalid' });
      assert.equal((await from(null)).statusCode, 401);
      assert.equal((await from('x'.repeat(20))).statusCode, 401);
      assert.equal((await t().call('PATCH', `/api/3/apikey/${key.id}`, { enabled: true })).status, 200);
      assert.equal((await t().call('GET', '/api/3/cliente', undefined, key.token)).status, 200);
      await t().call('DELETE', `/api/3/apikey/${key.id}`);
      assert.equal((await from(key.token)).statusCode, 401);
    });

    it('applies each of many quick revocations on the very next request (no stale cache window)', async () => {
      const key = await createKey(t(), { description: 'toggled', fullaccess: true });
      const wrong: number[] = [];
      for (let i = 0; i < 120; i++) {
        const enabled = i % 2 === 1;
        assert.equal((await t().call('PATCH', `/api/3/apikey/${key.id}`, { enabled })).status, 200);
        // Each probe from its own address: the expected 401s must not ban anyone.
        const probe = await t().request({ method: 'GET', url: '/api/3/', key: key.token, remoteAddress: `10.9.${i}.1` });
        if ((probe.statusCode === 200) !== enabled) wrong.push(i);
      }
      assert.deepEqual(wrong, []);
    });

    it('lets a restricted key use only what its rules allow, per method, through either name', async () => {
      const key = await createKey(t(), { description: 'restricted' });
      const rule = await t().call('POST', '/api/3/apiaccess', {
        idapikey: key.id, resource: 'cliente', allowget: true, allowpost: false, allowput: true, allowdelete: false,
      });
      assert.equal(rule.status, 201);
      await t().call('POST', '/api/3/cliente', { codcliente: 'R1', nombre: 'restricted' });
      const as = (method: string, url: string, body?: unknown) => t().call(method, url, body, key.token);
      assert.equal((await as('GET', '/api/3/cliente')).status, 200);
      assert.equal((await as('GET', '/api/3/clientes/R1')).status, 200, 'alias checked against the canonical rule');
      assert.equal((await as('GET', '/api/3/cliente/schema')).status, 200);
      assert.equal((await as('PUT', '/api/3/cliente/R1', { nombre: 'x' })).status, 200);
      assert.equal((await as('PATCH', '/api/3/clientes/R1', { nombre: 'y' })).status, 200, 'PATCH uses allowput');
      assert.deepEqual((await as('POST', '/api/3/cliente', { nombre: 'no' })).body, { error: 'forbidden' });
      assert.equal((await as('DELETE', '/api/3/cliente/R1')).status, 403);
      assert.equal((await as('GET', '/api/3/producto')).status, 403, 'no rule, no access');
      assert.equal((await as('GET', '/api/3/')).status, 200, 'the root listing needs no rule');
      // Changing the rule applies at once.
      await t().call('PATCH', `/api/3/apiaccess/${rule.body.id}`, { allowput: false, allowdelete: true });
      assert.equal((await as('PATCH', '/api/3/cliente/R1', { nombre: 'z' })).status, 403);
      assert.equal((await as('DELETE', '/api/3/cliente/R1')).status, 200);
      // A rule stored under the reference's plural name works too; deleting the key deletes its rules.
      await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource: 'productos', allowpost: false, allowput: false, allowdelete: false });
      assert.equal((await as('GET', '/api/3/producto')).status, 200);
      await t().call('DELETE', `/api/3/apikey/${key.id}`);
      assert.equal((await t().call('GET', `/api/3/apiaccess?filter[idapikey]=${key.id}`)).body.length, 0);
    });

    it('never shows a token after creation: get, list, filter, schema', async () => {
      const key = await createKey(t(), { description: 'secret' });
      assert.equal(key.token.length, 20);
      const texts = [
        (await t().request({ method: 'GET', url: `/api/3/apikey/${key.id}` })).body,
        (await t().request({ method: 'GET', url: '/api/3/apikeyes?limit=1000' })).body,
        (await t().request({ method: 'GET', url: '/api/3/apikey/schema' })).body,
      ];
      for (const text of texts) {
        assert.ok(!text.includes(key.token));
        assert.ok(!text.includes('"apikey"'));
      }
      const filter = await t().call('GET', `/api/3/apikey?filter[apikey]=${key.token}`);
      assert.deepEqual([filter.status, filter.body.message], [400, 'invalid-filter-field']);
    });

    it('records lastactivity and lastip of stored keys, coalesced off the request path', async () => {
      const key = await createKey(t(), { description: 'active', fullaccess: true });
      assert.equal((await t().call('GET', `/api/3/apikey/${key.id}`)).body.lastactivity, null);
      await t().request({ method: 'GET', url: '/api/3/', key: key.token, remoteAddress: '10.1.2.3' });
      await t().app.runJob('access');
      const first = (await t().call('GET', `/api/3/apikey/${key.id}`)).body;
      assert.equal(first.lastactivity, '2026-11-21 10:00:00');
      assert.equal(first.lastip, '10.1.2.3');
      clock.current += 5000;
      await t().request({ method: 'GET', url: '/api/3/', key: key.token });
      await t().request({ method: 'GET', url: '/api/3/', key: key.token });
      await t().app.runJob('access');
      assert.equal((await t().call('GET', `/api/3/apikey/${key.id}`)).body.lastactivity, '2026-11-21 10:00:05');
    });

    it('bans an address on the 5th failed authentication within 600 s, until the window frees it', async () => {
      const ip = '203.0.113.7';
      const attempt = (key: string | null, remoteAddress = ip) => t().request({ method: 'GET', url: '/api/3/cliente', key, remoteAddress });
      const start = clock.current;
      for (let i = 0; i < 4; i++) {
        assert.equal((await attempt('bad-token')).statusCode, 401);
        clock.current += 1000;
      }
      assert.equal((await attempt(GLOBAL_KEY)).statusCode, 200, 'four failures do not ban');
      assert.equal((await attempt(null)).statusCode, 401, 'a missing key is a failure too');
      const banned = await attempt(GLOBAL_KEY);
      assert.deepEqual([banned.statusCode, banned.json()], [429, { error: 'ip-banned' }]);
      assert.equal(banned.headers['retry-after'], String((start + 600_000 - clock.current) / 1000));
      assert.equal(banned.headers['access-control-allow-origin'], '*');
      assert.equal((await attempt(GLOBAL_KEY, '203.0.113.8')).statusCode, 200, 'other addresses unaffected');
      // 403s do not count, and banned requests add no failures.
      clock.current = start + 600_001;
      assert.equal((await attempt(GLOBAL_KEY)).statusCode, 200, 'the oldest failure expired: 4 left');
      assert.equal((await attempt('bad')).statusCode, 401);
      assert.equal((await attempt(GLOBAL_KEY)).statusCode, 429, 'five again within the window');
      clock.current = start + 700_000;
      assert.equal((await attempt(GLOBAL_KEY)).statusCode, 200);
    });

    it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
      for (let i = 0; i < 5; i++) {
        await t().request({ method: 'GET', url: '/api/3/', key: 'bad', remoteAddress: '198.51.100.1', headers: { 'x-forwarded-for': `192.0.2.${i}` } });
      }
      const spoofed = await t().request({ method: 'GET', url: '/api/3/', remoteAddress: '198.51.100.1', headers: { 'x-forwarded-for': '192.0.2.99' } });
      assert.equal(spoofed.statusCode, 429, 'a header cannot dodge the ban');
    });

    it('answers version errors after authentication', async () => {
      for (const url of ['/api/4/cliente', '/api/2/crearFacturaCliente', '/api/cliente', '/api', '/api/', '/api/03/cliente']) {
        const response = await t().call('GET', url);
        assert.deepEqual([response.status, response.body], [400, { error: 'api-version-invalid' }], url);
      }
      const unauthenticated = await t().request({ method: 'GET', url: '/api/4/cliente', key: 'bad', remoteAddress: '192.0.2.203' });
      assert.equal(unauthenticated.statusCode, 401);
    });

    it('puts CORS headers on a 200, a 401, a 404 and answers preflights without a key', async () => {
      for (const [url, key, status] of [['/api/3/cliente', GLOBAL_KEY, 200], ['/api/3/cliente', 'nope', 401], ['/api/3/cliente/NOPE', GLOBAL_KEY, 404]] as const) {
        const response = await t().request({ method: 'GET', url, key, remoteAddress: '192.0.2.204', headers: { origin: 'https://app.example' } });
        assert.equal(response.statusCode, status);
        assert.equal(response.headers['access-control-allow-origin'], '*', `${status}`);
      }
      const preflight = await t().request({
        method: 'OPTIONS',
        url: '/api/3/cliente',
        key: null,
        headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'x-auth-token, content-type' },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      assert.equal(preflight.headers['access-control-allow-methods'], 'GET, POST, PUT, DELETE, PATCH, OPTIONS');
      assert.equal(preflight.headers['access-control-allow-headers'], 'x-auth-token, content-type');
    });

    it('switches the whole API off and on (403 api-disabled on GET, POST and OPTIONS)', async () => {
      const off = await t().call('PUT', '/api/3/settings/default', { properties: { enable_api: false } });
      assert.equal(off.status, 200);
      assert.equal(off.body.properties.decimals, 2, 'other settings kept');
      for (const method of ['GET', 'POST', 'OPTIONS'] as const) {
        const response = await t().request({ method, url: '/api/3/cliente', ...(method === 'POST' ? { payload: { nombre: 'x' } } : {}) });
        assert.deepEqual([response.statusCode, response.json()], [403, { error: 'api-disabled' }], method);
        assert.equal(response.headers['access-control-allow-origin'], '*');
      }
      // Back on through the CLI, as another process would: a separate core on the same database.
      const core = await createCore({
        config: { ...loadConfig({}), databaseUrl: t().app.ctx.config.databaseUrl, stateRefreshMs: 0 },
        modules: coreModules(),
        log: { info() {}, warn() {}, error() {} },
      });
      const lines: string[] = [];
      assert.equal(await runCommand(core, ['settings', 'set', 'enable_api', 'true'], (l) => lines.push(l)), 0);
      await core.close();
      await eventually(async () => assert.equal((await t().call('GET', '/api/3/cliente')).status, 200));
    });
  },
  { clock, config: { stateRefreshMs: 25 } },
);

forEachEngine(
  'CLI',
  (t) => {
    it('creates, lists, disables and restricts keys, and reads settings', async () => {
      const out: string[] = [];
      const print = (line: string) => out.push(line);
      const app = t().app;
      assert.equal(await runCommand(app, ['apikey', 'create', '--description', 'cli key', '--nick', 'admin'], print), 0);
      const id = Number(/^id (\d+)/.exec(out[0]!)![1]);
      const token = /^token (\w{20})$/.exec(out[1]!)![1]!;
      assert.equal((await t().call('GET', '/api/3/cliente', undefined, token)).status, 403);
      await runCommand(app, ['apikey', 'allow', String(id), 'clientes', 'get,put'], print);
      assert.equal((await t().call('GET', '/api/3/cliente', undefined, token)).status, 200);
      assert.equal((await t().call('DELETE', '/api/3/cliente/x', undefined, token)).status, 403);
      await runCommand(app, ['apikey', 'allow', String(id), 'cliente', 'none'], print);
      assert.equal((await t().call('GET', '/api/3/cliente', undefined, token)).status, 403);
      await runCommand(app, ['apikey', 'disable', String(id)], print);
      assert.equal((await t().call('GET', '/api/3/', undefined, token)).status, 401);
      out.length = 0;
      await runCommand(app, ['apikey', 'list'], print);
      assert.ok(out.some((line) => line.startsWith(`${id}\tdisabled`)));
      assert.ok(!out.join('\n').includes(token), 'list never shows tokens');
      out.length = 0;
      await runCommand(app, ['settings', 'get', 'decimals'], print);
      assert.deepEqual(out, ['2']);
      assert.equal(await runCommand(app, ['nonsense'], () => {}), 1);
    });
  },
  { config: { stateRefreshMs: 25 } },
);

if (process.env.TEST_POSTGRES_URL) {
  describe('two instances on one PostgreSQL database', () => {
    it('share bans and key revocations', async () => {
      const scratch = await scratchDatabase('postgres');
      const options = { url: scratch.url, config: { stateRefreshMs: 25 } };
      const a = await startTestApp('postgres', options);
      const b = await startTestApp('postgres', options);
      try {
        const key = await createKey(a, { description: 'shared', fullaccess: true });
        await eventually(async () => assert.equal((await b.call('GET', '/api/3/cliente', undefined, key.token)).status, 200));
        const revoked = await a.call('PATCH', `/api/3/apikey/${key.id}`, { enabled: false });
        assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
        assert.equal((await a.call('GET', '/api/3/cliente', undefined, key.token)).status, 401);
        await eventually(async () => assert.equal((await b.call('GET', '/api/3/cliente', undefined, key.token)).status, 401));

        for (let i = 0; i < 5; i++) await a.request({ method: 'GET', url: '/api/3/', key: 'bad', remoteAddress: '192.0.2.50' });
        assert.equal((await a.request({ method: 'GET', url: '/api/3/', remoteAddress: '192.0.2.50' })).statusCode, 429);
        await eventually(async () => assert.equal((await b.request({ method: 'GET', url: '/api/3/', remoteAddress: '192.0.2.50' })).statusCode, 429));
        assert.equal((await b.request({ method: 'GET', url: '/api/3/', remoteAddress: '192.0.2.51' })).statusCode, 200);
      } finally {
        await a.close();
        await b.close();
        await scratch.drop();
      }
    });
  });
}
