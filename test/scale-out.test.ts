import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eventually } from './helpers/eventually.ts';
import { forEachEngine, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Several instances on one database behind a load balancer (docs/deploy.md): what they share goes
 * through the database, and what each caches converges within STATE_REFRESH_MS.
 */
const REFRESH_MS = 50;
const INVOICES = 40;

async function created(t: TestApp, url: string, body: Record<string, unknown>): Promise<any> {
  const answer = await t.call('POST', url, body);
  assert.equal(answer.status, 201, `${url}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

forEachEngine('two instances on one database', (t) => {
  it('number invoices made through both at once uniquely and without gaps; revocations and bans reach the other', async () => {
    const url = t().databaseUrl;
    const other = await startTestApp(t().engine, { url, config: { stateRefreshMs: REFRESH_MS } });
    try {
      await created(t(), '/api/3/cliente', { codcliente: 'SCALE', nombre: 'Scale out' });
      await created(t(), '/api/3/serie', { codserie: 'SO', descripcion: 'Scale out' });
      const answers = await Promise.all(Array.from({ length: INVOICES }, (_, i) => (i % 2 ? t() : other).call('POST', '/api/3/crearFacturaCliente', {
        codcliente: 'SCALE', codserie: 'SO', lineas: [{ descripcion: `Line ${i}`, cantidad: 1, pvpunitario: 10 + i }],
      })));
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const numbers = answers.map((answer) => Number(answer.body.doc.numero)).sort((a, b) => a - b);
      assert.deepEqual(numbers, Array.from({ length: INVOICES }, (_, i) => i + 1));

      // A key made on one instance works on the other, and its revocation there too.
      const key = await created(t(), '/api/3/apikey', { description: 'Scale-out key' });
      await created(t(), '/api/3/apiaccess', { idapikey: key.id, resource: 'cliente', allowget: true, allowpost: false, allowput: false, allowdelete: false });
      await eventually(async () => assert.equal((await other.call('GET', '/api/3/cliente/SCALE', undefined, key.apikey)).status, 200));
      assert.equal((await t().call('PATCH', `/api/3/apikey/${key.id}`, { enabled: false })).status, 200);
      assert.equal((await t().call('GET', '/api/3/cliente/SCALE', undefined, key.apikey)).status, 401);
      const revoked = Date.now();
      await eventually(async () => assert.equal((await other.call('GET', '/api/3/cliente/SCALE', undefined, key.apikey)).status, 401));
      assert.ok(Date.now() - revoked < 20 * REFRESH_MS + 1000, 'refused within a few refresh intervals');

      // An address banned by failures on one instance is banned on the other.
      const ip = '198.51.100.77';
      for (let i = 0; i < 5; i++) {
        const failed = await t().request({ method: 'GET', url: '/api/3/cliente', key: `wrong-token-${i}-0123456789`, remoteAddress: ip });
        assert.equal(failed.statusCode, 401);
      }
      assert.equal((await t().request({ method: 'GET', url: '/api/3/cliente', remoteAddress: ip })).statusCode, 429);
      await eventually(async () => assert.equal((await other.request({ method: 'GET', url: '/api/3/cliente', remoteAddress: ip })).statusCode, 429));
      // Other addresses are not affected.
      assert.equal((await other.request({ method: 'GET', url: '/api/3/cliente', remoteAddress: '198.51.100.78' })).statusCode, 200);
    } finally {
      // Closed here: the suite's database is dropped before any later hook of this file.
      await other.close();
    }
  });
}, { config: { stateRefreshMs: REFRESH_MS } });
