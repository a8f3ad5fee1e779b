import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

const run = promisify(execFile);

/**
 * A body over a limit reaches every common client as a 413 with its JSON error (issue 29, item 4):
 * the answer goes out, the rest of the body is read and thrown away (a lingering close), and
 * nothing of the request is stored. Over a real socket: `inject` cannot show a cut connection.
 */
describe('oversized bodies', () => {
  let t: TestApp;
  let base: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oversized-'));
  const KEY = 'x-auth-token';

  before(async () => {
    t = await startTestApp('sqlite', { config: { bodyLimit: 1_048_576, uploadMaxFileBytes: 1_048_576 } });
    await t.app.server.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const headers = { [KEY]: 'test-global-key-0123456789' };
  const count = async (resource: string) => Number((await t.request({ method: 'GET', url: `/api/3/${resource}?limit=1` })).headers['x-total-count']);
  const multipart = (field: string, bytes: number) => {
    const form = new FormData();
    form.append('nombre', 'Too big');
    form.append(field, new Blob([Buffer.alloc(bytes, 65)]), 'big.txt');
    return form;
  };

  it('answers Node\'s fetch 413 for a 2 MiB form and a 24 MiB multipart body, every time, and stores nothing', async () => {
    const [customers, files] = [await count('clientes'), await count('attachedfiles')];
    for (let round = 0; round < 5; round++) {
      const cases: Array<[string, RequestInit]> = [
        ['/api/3/clientes', { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: `codcliente=BIG&nombre=${'x'.repeat(2 * 1_048_576)}` }],
        ['/api/3/clientes', { method: 'POST', headers, body: multipart('adjunto', 24 * 1_048_576) }],
        ['/api/3/uploadFiles', { method: 'POST', headers, body: multipart('files[]', 24 * 1_048_576) }],
        ['/api/3/clientes', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ codcliente: 'BIG', nombre: 'x'.repeat(2 * 1_048_576) }) }],
      ];
      for (const [url, init] of cases) {
        const answer = await fetch(base + url, init);
        assert.equal(answer.status, 413, `${url} round ${round}`);
        assert.match(String(((await answer.json()) as { message: string }).message), /too-large/);
      }
    }
    assert.deepEqual([await count('clientes'), await count('attachedfiles')], [customers, files]);
  });

  it('answers a client still sending, slowly, when the limit is passed', async () => {
    // A body that keeps coming after the answer: without the lingering close the server would cut
    // the connection under the client's writes (EPIPE, ECONNRESET) instead of letting it read the 413.
    for (const [url, type, head] of [
      ['/api/3/clientes', 'application/x-www-form-urlencoded', 'nombre='],
      ['/api/3/clientes', 'multipart/form-data; boundary=XyZ', '--XyZ\r\nContent-Disposition: form-data; name="adjunto"; filename="a.txt"\r\n\r\n'],
    ] as const) {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode(head));
          await new Promise((resolve) => setTimeout(resolve, 2));
          const chunk = new Uint8Array(64 * 1024).fill(97);
          sent += chunk.length;
          controller.enqueue(chunk);
          if (sent >= 8 * 1_048_576) controller.close();
        },
      });
      const answer = await fetch(base + url, { method: 'POST', headers: { ...headers, 'content-type': type }, body, duplex: 'half' } as RequestInit);
      assert.equal(answer.status, 413, url);
      assert.equal(((await answer.json()) as { message: string }).message, 'body-too-large');
    }
  });

  it('answers curl and Python\'s requests 413 with the JSON error', async () => {
    const file = path.join(dir, 'big.bin');
    fs.writeFileSync(file, Buffer.alloc(24 * 1_048_576, 66));
    const curl = await run('curl', ['-s', '-H', `${KEY}: ${headers[KEY]}`, '-F', `files[]=@${file}`, '-w', '\n%{http_code}', `${base}/api/3/uploadFiles`]);
    const [body, status] = curl.stdout.trim().split('\n');
    assert.equal(status, '413');
    assert.equal(JSON.parse(body!).message, 'upload-file-too-large');
    const python = [
      'import requests, sys',
      `r = requests.post(sys.argv[1], headers={'${KEY}': sys.argv[2]}, data={'nombre': 'x' * (3 * 1048576)})`,
      'print(r.status_code, r.json()["message"])',
    ].join('\n');
    const answer = await run('python3', ['-c', python, `${base}/api/3/clientes`, headers[KEY]]);
    assert.equal(answer.stdout.trim(), '413 body-too-large');
  });
});
