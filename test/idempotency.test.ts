import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { enabledEngines, scratchDatabase, type ScratchDatabase } from './helpers/engines.ts';
import { freePort } from './helpers/free-port.ts';
import { forEachEngine, multipart } from './helpers/test-app.ts';

/**
 * `Idempotency-Key` (issue 29, docs/writes.md): a retried write returns the first answer and writes
 * nothing; one key is one write however many requests race with it; another request with the key is
 * refused; answers are stored with their write, so a crash between them and a retry still replays.
 */
forEachEngine('idempotency keys', (t) => {
  const send = (key: string | undefined, method: string, url: string, body?: unknown, token?: string) => t().request({
    method: method as 'POST',
    url,
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key === undefined ? {} : { 'idempotency-key': key }) },
    ...(token ? { key: token } : {}),
  });
  const count = async (resource: string) => Number((await t().request({ method: 'GET', url: `/api/3/${resource}?limit=1` })).headers['x-total-count']);
  const invoice = { codcliente: 'IDEM', lineas: [{ descripcion: 'retried', pvpunitario: 10 }] };

  before(async () => {
    assert.equal((await t().call('POST', '/api/3/clientes', { codcliente: 'IDEM', nombre: 'Idempotent' })).status, 201);
  });

  it('replays a retried creation byte for byte and creates one invoice', async () => {
    const before = await count('facturaclientes');
    const first = await send('create-1', 'POST', '/api/3/crearFacturaCliente', invoice);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await send('create-1', 'POST', '/api/3/crearFacturaCliente', invoice);
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(await count('facturaclientes'), before + 1);
    // Without a key, the same request is a new invoice, as before.
    assert.equal((await send(undefined, 'POST', '/api/3/crearFacturaCliente', invoice)).statusCode, 200);
    assert.equal(await count('facturaclientes'), before + 2);
  });

  it('makes one invoice of 20 concurrent requests with one key; the others are 409 or replays', async () => {
    const before = await count('facturaclientes');
    const answers = await Promise.all(Array.from({ length: 20 }, () => send('race-1', 'POST', '/api/3/crearFacturaCliente', invoice)));
    const created = answers.filter((a) => a.statusCode === 200 && a.headers['idempotent-replayed'] === undefined);
    assert.equal(created.length, 1, answers.map((a) => a.statusCode).join(' '));
    for (const answer of answers) {
      if (answer === created[0]) continue;
      if (answer.statusCode === 409) assert.equal(JSON.parse(answer.body).message, 'idempotency-key-in-use');
      else assert.deepEqual([answer.statusCode, answer.headers['idempotent-replayed'], answer.body], [200, 'true', created[0]!.body]);
    }
    assert.equal(await count('facturaclientes'), before + 1);
    const late = await send('race-1', 'POST', '/api/3/crearFacturaCliente', invoice);
    assert.equal(late.headers['idempotent-replayed'], 'true');
  });

  it('refuses a key reused for another request (422) and a malformed key (400), writing nothing', async () => {
    await send('reuse-1', 'POST', '/api/3/crearFacturaCliente', invoice);
    const before = await count('facturaclientes');
    const other = await send('reuse-1', 'POST', '/api/3/crearFacturaCliente', { ...invoice, observaciones: 'different' });
    assert.deepEqual([other.statusCode, JSON.parse(other.body).message], [422, 'idempotency-key-reused']);
    const elsewhere = await send('reuse-1', 'POST', '/api/3/crearFacturaProveedor', invoice);
    assert.equal(elsewhere.statusCode, 422);
    for (const key of ['x'.repeat(256), 'tab\there', 'ñandú', '']) {
      const bad = await send(key, 'POST', '/api/3/crearFacturaCliente', invoice);
      assert.deepEqual([bad.statusCode, JSON.parse(bad.body).message], [400, 'invalid-idempotency-key'], JSON.stringify(key));
    }
    assert.equal(await count('facturaclientes'), before);
  });

  it('stores business refusals, but not what the handler did not answer (401), so that retry runs', async () => {
    const refused = await send('refusal-1', 'POST', '/api/3/crearFacturaCliente', { codcliente: 'NOBODY', lineas: [] });
    assert.equal(refused.statusCode, 404);
    assert.equal((await t().call('POST', '/api/3/clientes', { codcliente: 'NOBODY', nombre: 'Late' })).status, 201);
    const replayed = await send('refusal-1', 'POST', '/api/3/crearFacturaCliente', { codcliente: 'NOBODY', lineas: [] });
    assert.deepEqual([replayed.statusCode, replayed.headers['idempotent-replayed'], replayed.body], [404, 'true', refused.body]);
    const unauthorised = await send('auth-1', 'POST', '/api/3/clientes', { codcliente: 'AUTH1', nombre: 'A' }, 'not-a-key');
    assert.equal(unauthorised.statusCode, 401);
    const runs = await send('auth-1', 'POST', '/api/3/clientes', { codcliente: 'AUTH1', nombre: 'A' });
    assert.deepEqual([runs.statusCode, runs.headers['idempotent-replayed']], [201, undefined]);
  });

  it('scopes keys to the API key that sent them', async () => {
    const created = await t().call('POST', '/api/3/apikey', { description: 'idempotency', fullaccess: true, enabled: true });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const token = created.body.apikey as string;
    const mine = await send('shared-name', 'POST', '/api/3/clientes', { codcliente: 'SCOPE1', nombre: 'One' });
    const theirs = await send('shared-name', 'POST', '/api/3/clientes', { codcliente: 'SCOPE2', nombre: 'Two' }, token);
    assert.deepEqual([mine.statusCode, theirs.statusCode, theirs.headers['idempotent-replayed']], [201, 201, undefined]);
    // Under the established system's profile the replay is that profile's answer, byte for byte.
    const legacy = await t().call('POST', '/api/3/apikey', { description: 'legacy', fullaccess: true, enabled: true, profile: 'facturascripts' });
    const first = await send('legacy-1', 'POST', '/api/3/clientes', { codcliente: 'LEGACY', nombre: 'Legacy' }, legacy.body.apikey);
    const again = await send('legacy-1', 'POST', '/api/3/clientes', { codcliente: 'LEGACY', nombre: 'Legacy' }, legacy.body.apikey);
    assert.deepEqual([again.statusCode, again.body, again.headers['idempotent-replayed']], [first.statusCode, first.body, 'true']);
  });

  it('covers edits, payments, deletions and uploads', async () => {
    const { body } = await t().call('POST', '/api/3/crearFacturaCliente', invoice);
    const id = body.doc.idfactura;
    const paid = await send('pay-1', 'POST', `/api/3/pagarFacturaCliente/${id}`, { pagada: true });
    const paidAgain = await send('pay-1', 'POST', `/api/3/pagarFacturaCliente/${id}`, { pagada: true });
    assert.deepEqual([paid.statusCode, paidAgain.body, paidAgain.headers['idempotent-replayed']], [200, paid.body, 'true']);
    const payments = await count('pagoclientes');
    assert.equal((await send('pay-1', 'POST', `/api/3/pagarFacturaCliente/${id}`, { pagada: true })).headers['idempotent-replayed'], 'true');
    assert.equal(await count('pagoclientes'), payments);

    assert.equal((await t().call('POST', '/api/3/clientes', { codcliente: 'GONE', nombre: 'Gone' })).status, 201);
    const removed = await send('delete-1', 'DELETE', '/api/3/clientes/GONE');
    const removedAgain = await send('delete-1', 'DELETE', '/api/3/clientes/GONE');
    assert.deepEqual([removed.statusCode, removedAgain.statusCode, removedAgain.body], [200, 200, removed.body]);

    const edited = await send('edit-1', 'PATCH', '/api/3/clientes/IDEM', { observaciones: 'first' });
    assert.equal((await t().call('PATCH', '/api/3/clientes/IDEM', { observaciones: 'second' })).status, 200);
    const editedAgain = await send('edit-1', 'PATCH', '/api/3/clientes/IDEM', { observaciones: 'first' });
    assert.deepEqual([editedAgain.body, editedAgain.headers['idempotent-replayed']], [edited.body, 'true']);
    assert.equal((await t().call('GET', '/api/3/clientes/IDEM')).body.observaciones, 'second', 'a replay writes nothing');

    const files = await count('attachedfiles');
    const form = multipart({}, [{ field: 'files[]', name: 'idem.txt', type: 'text/plain', content: 'once' }]);
    const upload = () => t().request({ method: 'POST', url: '/api/3/uploadFiles', payload: form.payload, headers: { ...form.headers, 'idempotency-key': 'upload-1' } });
    const [one, two] = [await upload(), await upload()];
    assert.deepEqual([one.statusCode, two.statusCode, two.body, two.headers['idempotent-replayed']], [200, 200, one.body, 'true']);
    assert.equal(await count('attachedfiles'), files + 1);

    // A body over a limit is a refusal of the request as sent: not kept, the same key may go again.
    const big = multipart({}, [{ field: 'files[]', name: 'big.bin', type: 'application/octet-stream', content: Buffer.alloc(11 * 1_048_576, 1) }]);
    const tooBig = await t().request({ method: 'POST', url: '/api/3/uploadFiles', payload: big.payload, headers: { ...big.headers, 'idempotency-key': 'upload-2' } });
    assert.equal(tooBig.statusCode, 413);
    const small = multipart({}, [{ field: 'files[]', name: 'small.txt', type: 'text/plain', content: 'fits' }]);
    const fits = await t().request({ method: 'POST', url: '/api/3/uploadFiles', payload: small.payload, headers: { ...small.headers, 'idempotency-key': 'upload-2' } });
    assert.deepEqual([fits.statusCode, fits.headers['idempotent-replayed']], [200, undefined]);
  });
});

/**
 * The process dies (SIGKILL) after a creation and its stored answer committed, before the answer
 * leaves: the client sees the connection drop, retries with its key on the restarted service, and
 * gets the answer, with one invoice written.
 */
const KEY = 'idempotency-crash-key-0123456789';
for (const engine of enabledEngines()) {
  describe(`idempotency across a crash [${engine}]`, () => {
    let scratch: ScratchDatabase | undefined;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-idem-'));
    after(async () => {
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const start = async (url: string, kill: boolean): Promise<{ child: ChildProcess; port: number }> => {
      const port = await freePort();
      const child = spawn(process.execPath, ['src/main.ts'], {
        cwd: path.resolve(import.meta.dirname, '..'),
        env: { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, API_KEY: KEY, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', INVOICING_TEST_KILL_AFTER_COMMIT: kill ? '1' : '' },
        stdio: 'ignore',
      });
      // A deadline, not a count of tries: a loaded machine can take long to start the process.
      for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
        if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
        const up = await fetch(`http://127.0.0.1:${port}/api/3/`, { headers: { 'x-auth-token': KEY } }).then((r) => r.status === 200, () => false);
        if (up) return { child, port };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill('SIGKILL');
      throw new Error('the service did not start');
    };
    const post = (port: number, url: string, body: unknown) => fetch(`http://127.0.0.1:${port}${url}`, {
      method: 'POST', headers: { 'x-auth-token': KEY, 'content-type': 'application/json', 'idempotency-key': 'crash-1' }, body: JSON.stringify(body),
    });

    it('replays the stored answer after a kill -9 between the commit and the answer', async () => {
      scratch = await scratchDatabase(engine);
      const url = engine === 'sqlite' ? `sqlite:${path.join(dataDir, 'crash.db')}` : scratch.url;
      const setup = await start(url, false);
      assert.equal((await fetch(`http://127.0.0.1:${setup.port}/api/3/clientes`, {
        method: 'POST', headers: { 'x-auth-token': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ codcliente: 'CRASH', nombre: 'Crash' }),
      })).status, 201);
      setup.child.kill('SIGTERM');
      await new Promise((resolve) => setup.child.once('exit', resolve));

      const doomed = await start(url, true);
      const exited = new Promise((resolve) => doomed.child.once('exit', resolve));
      const body = { codcliente: 'CRASH', lineas: [{ descripcion: 'once', pvpunitario: 7 }] };
      await assert.rejects(post(doomed.port, '/api/3/crearFacturaCliente', body), 'the answer never arrives');
      await exited;

      const again = await start(url, false);
      try {
        const retried = await post(again.port, '/api/3/crearFacturaCliente', body);
        assert.equal(retried.status, 200);
        assert.equal(retried.headers.get('idempotent-replayed'), 'true');
        const answer = await retried.json() as { doc: { idfactura: number; total: number } };
        assert.equal(answer.doc.total, 8.47);
        const list = await (await fetch(`http://127.0.0.1:${again.port}/api/3/facturaclientes?filter[codcliente]=CRASH`, { headers: { 'x-auth-token': KEY } })).json() as unknown[];
        assert.equal(list.length, 1, 'one invoice');
      } finally {
        again.child.kill('SIGTERM');
        await new Promise((resolve) => again.child.once('exit', resolve));
      }
    });
  });
}

