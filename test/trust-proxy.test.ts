import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

forEachEngine(
  'TRUST_PROXY',
  (t) => {
    it('takes the client address from X-Forwarded-For when set', async () => {
      const via = (forwarded: string, key = 'bad') =>
        t().request({ method: 'GET', url: '/api/3/', key, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': forwarded } });
      for (let i = 0; i < 5; i++) assert.equal((await via('192.0.2.10')).statusCode, 401);
      assert.equal((await via('192.0.2.10', undefined as unknown as string)).statusCode, 429);
      const other = await t().request({ method: 'GET', url: '/api/3/', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '192.0.2.11' } });
      assert.equal(other.statusCode, 200, 'another client behind the same proxy is not banned');
    });
  },
  { config: { trustProxy: true } },
);
