import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Fair use per key (issue 29, docs/deploy.md): RATE_LIMIT_PER_MINUTE per key and minute, a key's own
 * `ratelimit` overriding it (0: none), 429 `rate-limited` with Retry-After, RateLimit headers on
 * every answer of a limited key, the global key and /health exempt, and one count shared by the
 * instances on one database.
 */
const LIMIT = 5;

async function newKey(t: TestApp, extra: Record<string, unknown> = {}): Promise<{ id: number; token: string }> {
  const created = await t.call('POST', '/api/3/apikey', { description: 'fair use', fullaccess: true, enabled: true, ...extra });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { id: created.body.id, token: created.body.apikey };
}

forEachEngine('rate limits', (t) => {
  it('limits a key per minute with 429 and Retry-After, and tells its budget on every answer', async () => {
    const key = await newKey(t());
    for (let i = 0; i < LIMIT; i++) {
      const answer = await t().request({ method: 'GET', url: '/api/3/clientes?limit=1', key: key.token });
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers['ratelimit-policy'], `"per-key";q=${LIMIT};w=60`);
      assert.match(String(answer.headers.ratelimit), new RegExp(`^"per-key";r=${LIMIT - i - 1};t=\\d+$`));
    }
    const refused = await t().request({ method: 'GET', url: '/api/3/clientes?limit=1', key: key.token });
    assert.equal(refused.statusCode, 429);
    assert.equal(JSON.parse(refused.body).message, 'rate-limited');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.match(String(refused.headers.ratelimit), /^"per-key";r=0;t=\d+$/);
    // A write is refused too, and nothing is written.
    const write = await t().request({ method: 'POST', url: '/api/3/clientes', payload: { codcliente: 'RL1', nombre: 'Limited' }, key: key.token });
    assert.equal(write.statusCode, 429);
    assert.equal((await t().call('GET', '/api/3/clientes/RL1')).status, 404);
  });

  it('exempts the global key and /health, and applies a key\'s own limit (0: none)', async () => {
    for (let i = 0; i < LIMIT * 3; i++) assert.equal((await t().request({ method: 'GET', url: '/api/3/clientes?limit=1' })).statusCode, 200);
    assert.equal((await t().request({ method: 'GET', url: '/api/3/clientes?limit=1' })).headers['ratelimit-policy'], undefined);
    const key = await newKey(t());
    for (let i = 0; i < LIMIT * 2; i++) assert.equal((await t().request({ method: 'GET', url: '/health', key: key.token })).statusCode, 200);
    const strict = await newKey(t(), { ratelimit: 2 });
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await t().request({ method: 'GET', url: '/api/3/', key: strict.token })).statusCode);
    assert.deepEqual(codes, [200, 200, 429]);
    const free = await newKey(t(), { ratelimit: 0 });
    for (let i = 0; i < LIMIT * 2; i++) assert.equal((await t().request({ method: 'GET', url: '/api/3/', key: free.token })).statusCode, 200);
    // The override is a field of the key, editable through the API.
    assert.equal((await t().call('PATCH', `/api/3/apikey/${free.id}`, { ratelimit: 1 })).status, 200);
    assert.equal((await t().call('GET', `/api/3/apikey/${free.id}`)).body.ratelimit, 1);
    assert.equal((await t().call('PATCH', `/api/3/apikey/${free.id}`, { ratelimit: -1 })).status, 422);
  });
}, { config: { rateLimitPerMinute: LIMIT } });

forEachEngine('rate limits across instances', (t) => {
  it('counts one key\'s requests on two instances together', async () => {
    const other = await startTestApp(t().engine, { url: t().databaseUrl, config: { rateLimitPerMinute: 10 } });
    try {
      const key = await newKey(t());
      // Keys are loaded by each instance's cache: the other one learns of the new key on its poll.
      await other.app.ctx.shared.poll();
      const on = async (app: TestApp, n: number) => {
        const codes: number[] = [];
        for (let i = 0; i < n; i++) codes.push((await app.request({ method: 'GET', url: '/api/3/', key: key.token })).statusCode);
        return codes;
      };
      assert.deepEqual(await on(t(), 6), Array(6).fill(200));
      await t().app.runJob('rate-limits');
      await other.app.runJob('rate-limits');
      // The other instance knows the 6 already served: 4 more, then 429.
      assert.deepEqual(await on(other, 5), [200, 200, 200, 200, 429]);
      await other.app.runJob('rate-limits');
      await t().app.runJob('rate-limits');
      assert.deepEqual(await on(t(), 1), [429]);
    } finally {
      await other.close();
    }
  });
}, { engines: ['postgres', 'mysql'], config: { rateLimitPerMinute: 10 } });
