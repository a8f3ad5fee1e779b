import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { downloadLinks } from '../src/modules/files/download-links.ts';
import { enabledEngines } from './helpers/engines.ts';
import { eventually } from './helpers/eventually.ts';
import { handmadePng } from './helpers/png.ts';
import { forEachEngine, multipart, startTestApp, type TestApp } from './helpers/test-app.ts';

type Upload = { field?: string; name: string; content: Buffer | string; type?: string };

/** A 1 x 1 PNG: a real image, so that its type is sniffed as image/png whatever its name says. */
function png(): Buffer {
  return handmadePng(1, 1);
}

function upload(t: TestApp, url: string, files: Upload[], fields: Record<string, string> = {}, method: 'POST' | 'PUT' | 'PATCH' = 'POST') {
  const body = multipart(fields, files.map((file) => ({ field: file.field ?? 'files[]', name: file.name, type: file.type ?? 'application/octet-stream', content: file.content })));
  return t.request({ method, url, ...body });
}

const LIMITS = { uploadMaxFileBytes: 1000, uploadMaxFiles: 3, uploadMaxRequestBytes: 2500 };

for (const filesStorage of ['local', 'database'] as const) {
  // One data folder for the three engines' suites: ids start again at 1 on each database, so the
  // second engine meets files a first one left (as a reinstalled service would), never overwritten.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `files-${filesStorage}-`));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  forEachEngine(`files (${filesStorage} storage)`, (t) => {
    /** What storage holds: stored files under MyFiles (but Tmp) on disk, or parts in the database. */
    async function storedPaths(): Promise<string[]> {
      if (filesStorage === 'database') {
        const rows = await t().app.ctx.database.kysely.selectFrom('file_contents').select('path').distinct().execute();
        return rows.map((row) => String(row.path)).filter((stored) => !stored.startsWith('MyFiles/Tmp/')).sort();
      }
      const root = path.join(dataDir, 'MyFiles');
      if (!fs.existsSync(root)) return [];
      return (fs.readdirSync(root, { recursive: true }) as string[])
        .map((name) => `MyFiles/${name.split(path.sep).join('/')}`)
        // A file listed and then removed by a deletion finishing meanwhile is simply gone.
        .filter((name) => !name.startsWith('MyFiles/Tmp') && fs.statSync(path.join(dataDir, name), { throwIfNoEntry: false })?.isFile())
        .sort();
    }
    const count = async () => Number((await t().call('GET', '/api/3/attachedfiles?limit=1')).headers['x-total-count']);
    const spooled = () => (fs.existsSync(path.join(dataDir, 'MyFiles', 'Tmp', 'uploads')) ? fs.readdirSync(path.join(dataDir, 'MyFiles', 'Tmp', 'uploads')) : []);
    const download = (link: string, headers: Record<string, string> = {}) => t().request({ method: 'GET', url: `/${link}`, key: null, headers });

    it('lists uploadFiles and attachedfiles at the root', async () => {
      const root = await t().call('GET', '/api/3/');
      const names = JSON.stringify(root.body);
      assert.ok(names.includes('"uploadFiles"') && names.includes('"attachedfiles"') && names.includes('"attachedfilerelation"'));
    });

    it('stores several files of one upload, typed by their content, at MyFiles/<yyyy>/<mm>/<idfile>_<slug>.<ext>', async () => {
      const before = await storedPaths();
      const answer = await upload(t(), '/api/3/uploadFiles', [
        { name: 'Informe Año 2026.TXT', content: 'the yearly report', type: 'text/html' },
        { name: 'photo.bin', content: png(), type: 'text/plain' },
        { name: 'ignored.txt', field: 'files', content: 'a field without brackets is not an upload' },
      ]);
      assert.equal(answer.statusCode, 200, answer.body);
      const files = answer.json();
      assert.ok(Array.isArray(files), 'a bare array');
      assert.equal(files.length, 2);
      const [text, image] = files;
      assert.deepEqual(Object.keys(text).sort(), ['date', 'filename', 'hour', 'idfile', 'mimetype', 'path', 'size']);
      assert.deepEqual([text.filename, text.mimetype, text.size], ['informe año 2026.txt', 'text/plain', 17]);
      assert.deepEqual([image.mimetype, image.size], ['image/png', png().length]);
      const [year, month] = text.date.split('-');
      // A variant suffix when another engine's suite left bytes at that path in the shared folder.
      assert.match(text.path, new RegExp(`^MyFiles/${year}/${month}/${text.idfile}_informe-ano-2026(-[0-9a-f]{6})?\\.txt$`));
      assert.match(image.path, new RegExp(`^MyFiles/${year}/${month}/${image.idfile}_photo(-[0-9a-f]{6})?\\.bin$`));
      assert.deepEqual(await storedPaths(), [...before, text.path, image.path].sort());
      assert.deepEqual(spooled(), [], 'no temporary file is left');
    });

    it('refuses each limit with 413 and keeps nothing of the request', async () => {
      const [records, stored] = [await count(), await storedPaths()];
      const big = await upload(t(), '/api/3/uploadFiles', [{ name: 'small.txt', content: 'fine' }, { name: 'big.txt', content: 'x'.repeat(1500) }]);
      assert.deepEqual([big.statusCode, big.json().message, big.json().file, big.json().limit], [413, 'upload-file-too-large', 'big.txt', 1000]);
      const many = await upload(t(), '/api/3/uploadFiles', ['a', 'b', 'c', 'd'].map((name) => ({ name: `${name}.txt`, content: name })));
      assert.deepEqual([many.statusCode, many.json().message], [413, 'too-many-files']);
      const whole = await upload(t(), '/api/3/uploadFiles', ['a', 'b', 'c'].map((name) => ({ name: `${name}.txt`, content: name.repeat(900) })));
      assert.deepEqual([whole.statusCode, whole.json().message], [413, 'upload-too-large']);
      assert.equal(await count(), records);
      assert.deepEqual(await storedPaths(), stored);
      // Spooled bytes go once the writes that were cut stop.
      await eventually(async () => assert.deepEqual(spooled(), []), 10_000);
    });

    it('never lets a client name leave its folder: traversal, absolute, encoded and NUL names are reduced', async () => {
      const names = [
        '../../../etc/passwd.txt', '/etc/shadow.txt', 'C:\\Windows\\win.ini.txt', '..%2F..%2Fescape.txt', 'nul\u0000byte.txt', '....txt',
        '%2e%2e%2f%2e%2e%2fencoded.txt', 'dir%5cback.txt', 'nul%00.txt', '%252e%252e%252fdouble.txt', '100%.txt',
        Array.from({ length: 6 }).reduce<string>((name) => encodeURIComponent(name), '../six.txt'),
      ];
      const files = [];
      for (const group of [names.slice(0, 3), names.slice(3, 6), names.slice(6, 9), names.slice(9)]) {
        const answer = await upload(t(), '/api/3/uploadFiles', group.map((name) => ({ name, content: `content of ${name.length}` })));
        assert.equal(answer.statusCode, 200, answer.body);
        files.push(...answer.json());
      }
      // Percent-encoded separators, dots and NUL are decoded (however often) before the name is cleaned.
      assert.deepEqual(files.map((file: { filename: string }) => file.filename), [
        'passwd.txt', 'shadow.txt', 'win.ini.txt', 'escape.txt', 'nulbyte.txt', 'txt', 'encoded.txt', 'back.txt', 'nul.txt', 'double.txt', '100%.txt', 'six.txt',
      ]);
      for (const file of files) assert.doesNotMatch(file.filename, /%(2e|2f|5c|00|25)/i);
      for (const file of files) {
        assert.match(file.path, /^MyFiles\/\d{4}\/\d{2}\/\d+_[a-z0-9-]+(\.[a-z0-9]+)?$/);
      }
      assert.ok(!fs.existsSync(path.join(dataDir, '..', 'escape.txt')) && !fs.existsSync(path.join(dataDir, 'escape.txt')));
    });

    it('refuses blocked extensions, active content whatever its name, and empty files, naming them (422)', async () => {
      const [records, stored] = [await count(), await storedPaths()];
      const cases: Array<[Upload, string]> = [
        [{ name: 'shell.php', content: 'plain words' }, 'blocked-extension'],
        [{ name: 'page.HTML', content: 'plain words' }, 'blocked-extension'],
        [{ name: 'cat.png', content: '<html><body><script>alert(1)</script></body></html>', type: 'image/png' }, 'active-content'],
        [{ name: 'logo.jpg', content: '\uFEFF  <svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>' }, 'active-content'],
        [{ name: 'notes.txt', content: '<!DOCTYPE html><p>hi' }, 'active-content'],
        [{ name: 'empty.txt', content: '' }, 'empty-file'],
      ];
      for (const [file, reason] of cases) {
        const answer = await upload(t(), '/api/3/uploadFiles', [{ name: 'good.txt', content: 'kept only if all are good' }, file]);
        assert.deepEqual([answer.statusCode, answer.json().message, answer.json().file, answer.json().reason], [422, 'file-refused', file.name.toLowerCase(), reason], file.name);
      }
      assert.equal(await count(), records);
      assert.deepEqual(await storedPaths(), stored);
      const none = await upload(t(), '/api/3/uploadFiles', [{ name: 'x.txt', field: 'other', content: 'x' }]);
      assert.deepEqual([none.statusCode, none.json().message], [422, 'file-required']);
    });

    it('creates, lists, reads, updates, replaces and deletes attached files', async () => {
      const created = await upload(t(), '/api/3/attachedfiles', [{ field: 'file', name: 'Contract.pdf', content: '%PDF-1.4\n%fake but sniffed as pdf\n' }], { filename: 'contrato firmado.pdf' });
      assert.equal(created.statusCode, 201, created.body);
      const file = created.json();
      assert.deepEqual([file.filename, file.mimetype], ['contrato firmado.pdf', 'application/pdf']);
      assert.match(file.download, new RegExp(`^${file.path}\\?myft=\\d+\\.`));
      assert.match(file['download-permanent'], new RegExp(`^${file.path}\\?myft=p\\.`));
      const json = await t().call('POST', '/api/3/attachedfiles', { filename: 'x.txt', path: 'MyFiles/x.txt', size: 1 });
      assert.deepEqual([json.status, json.body.message], [422, 'file-required']);

      const page = await t().call('GET', `/api/3/attachedfiles?filter[mimetype]=application/pdf&sort[idfile]=DESC&limit=1`);
      assert.equal(page.status, 200);
      assert.equal(page.body[0].idfile, file.idfile);
      assert.ok(Number(page.headers['x-total-count']) >= 1);
      assert.ok(page.body[0].download, 'lists carry the links');
      const one = await t().call('GET', `/api/3/attachedfiles/${file.idfile}`);
      assert.deepEqual([one.body.path, typeof one.body['download-permanent']], [file.path, 'string']);
      const schema = await t().call('GET', '/api/3/attachedfiles/schema');
      assert.equal(schema.status, 200);

      const renamed = await t().call('PATCH', `/api/3/attachedfiles/${file.idfile}`, { filename: 'Contrato 2026.pdf' });
      assert.deepEqual([renamed.status, renamed.body.filename, renamed.body.path], [200, 'contrato 2026.pdf', file.path]);
      const moved = await t().call('PATCH', `/api/3/attachedfiles/${file.idfile}`, { path: '../../etc/passwd', size: 5 });
      assert.deepEqual([moved.status, moved.body.fields], [422, { path: 'read-only', size: 'read-only' }]);

      const replaced = await upload(t(), `/api/3/attachedfiles/${file.idfile}`, [{ field: 'file', name: 'contract.txt', content: 'now plain text' }], {}, 'PUT');
      assert.equal(replaced.statusCode, 200, replaced.body);
      const now = replaced.json();
      assert.deepEqual([now.idfile, now.filename, now.mimetype, now.size], [file.idfile, 'contract.txt', 'text/plain', 14]);
      assert.notEqual(now.path, file.path);
      assert.equal((await download(file['download-permanent'])).statusCode, 404, 'the old bytes are gone');
      assert.equal((await download(now['download-permanent'])).body, 'now plain text');

      const removed = await t().call('DELETE', `/api/3/attachedfiles/${file.idfile}`);
      assert.equal(removed.status, 200);
      assert.equal((await download(now.download)).statusCode, 404);
      assert.equal((await download(now['download-permanent'])).statusCode, 404);
      await eventually(async () => assert.ok(!(await storedPaths()).includes(now.path), 'the bytes went with the record'), 10_000);
      assert.equal((await t().call('GET', `/api/3/attachedfiles/${file.idfile}`)).status, 404);
    });

    it('serves signed downloads without a key: type, length, ETag, Range; refuses tampered and expired links', async () => {
      const bytes = Buffer.from('0123456789abcdefghij');
      const [text] = (await upload(t(), '/api/3/uploadFiles', [{ name: 'digits.txt', content: bytes }])).json();
      const [image] = (await upload(t(), '/api/3/uploadFiles', [{ name: 'pixel.png', content: png() }])).json();
      const { body: record } = await t().call('GET', `/api/3/attachedfiles/${text.idfile}`);
      const whole = await download(record.download);
      assert.equal(whole.statusCode, 200);
      assert.equal(whole.body, bytes.toString());
      assert.equal(whole.headers['content-length'], String(bytes.length));
      assert.equal(whole.headers['x-content-type-options'], 'nosniff');
      assert.match(String(whole.headers['content-type']), /^text\/plain/);
      assert.match(String(whole.headers['content-disposition']), /^attachment; filename="digits.txt"/);
      const etag = String(whole.headers.etag);
      assert.equal((await download(record['download-permanent'], { 'if-none-match': etag })).statusCode, 304);
      const part = await download(record.download, { range: 'bytes=3-6' });
      assert.deepEqual([part.statusCode, part.body, part.headers['content-range'], part.headers['content-length']], [206, '3456', `bytes 3-6/${bytes.length}`, '4']);
      const tail = await download(record.download, { range: 'bytes=-4' });
      assert.deepEqual([tail.statusCode, tail.body], [206, 'ghij']);
      const outside = await download(record.download, { range: 'bytes=500-' });
      assert.deepEqual([outside.statusCode, outside.json().message, outside.headers['content-range']], [416, 'range-not-satisfiable', `bytes */${bytes.length}`]);

      const { body: picture } = await t().call('GET', `/api/3/attachedfiles/${image.idfile}`);
      const shown = await download(picture['download-permanent']);
      assert.deepEqual([shown.statusCode, shown.headers['content-type'], String(shown.headers['content-disposition']).split(';')[0]], [200, 'image/png', 'inline']);
      assert.ok(shown.rawPayload.equals(png()));

      const token = record['download-permanent'].split('myft=')[1];
      const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      for (const link of [`${text.path}?myft=${flipped}`, `${text.path}`, `${text.path}?myft=`, `${image.path}?myft=${token}`]) {
        const answer = await download(link);
        assert.deepEqual([answer.statusCode, answer.json().message], [403, 'invalid-download-link'], link);
      }
      const secret = await t().app.ctx.database.kysely.selectFrom('service_secrets').select('value').where('name', '=', 'download-links').executeTakeFirstOrThrow();
      const stale = downloadLinks(String(secret.value), () => Math.floor(Date.now() / 1000) - 3 * 86_400).linksOf(text.path);
      const expired = await download(stale.download);
      assert.deepEqual([expired.statusCode, expired.json().message], [403, 'download-link-expired']);
      assert.equal((await download(stale['download-permanent'])).statusCode, 200, 'permanent links do not expire');
      const keyed = await t().request({ method: 'GET', url: `/${record.download}`, key: 'not-a-key-at-all-0000' });
      assert.equal(keyed.statusCode, 200, 'a key, even a bad one, plays no part');
    });

    it('links files to records, lists a record\'s files, and drops the links when the record or the file goes', async () => {
      const [file, other] = (await upload(t(), '/api/3/uploadFiles', [{ name: 'a.txt', content: 'a' }, { name: 'b.txt', content: 'b' }])).json();
      assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'FILES1', nombre: 'Files customer', cifnif: 'B00000000' })).status, 201);
      const invoice = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'FILES1', lineas: [{ descripcion: 'x', pvpunitario: 1 }] })).body.doc;
      const link = async (values: Record<string, unknown>) => {
        const answer = await t().call('POST', '/api/3/attachedfilerelation', values);
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        return answer.body;
      };
      await link({ idfile: file.idfile, model: 'Cliente', modelid: 0, modelcode: 'FILES1', observations: 'signed contract' });
      await link({ idfile: file.idfile, model: 'FacturaCliente', modelid: invoice.idfactura });
      await link({ idfile: other.idfile, model: 'FacturaCliente', modelid: invoice.idfactura });
      const ofInvoice = async () => (await t().call('GET', `/api/3/attachedfilerelation?filter[model]=FacturaCliente&filter[modelid]=${invoice.idfactura}`)).body.map((row: { idfile: number }) => row.idfile).sort();
      assert.deepEqual(await ofInvoice(), [file.idfile, other.idfile].sort());
      assert.equal((await t().call('DELETE', `/api/3/attachedfiles/${other.idfile}`)).status, 200);
      assert.deepEqual(await ofInvoice(), [file.idfile], 'a deleted file leaves no link');
      assert.equal((await t().call('DELETE', `/api/3/facturacliente/${invoice.idfactura}`)).status, 200);
      assert.deepEqual(await ofInvoice(), [], 'a deleted invoice leaves no link');
      assert.equal((await t().call('DELETE', '/api/3/cliente/FILES1')).status, 200);
      const ofCustomer = await t().call('GET', '/api/3/attachedfilerelation?filter[model]=Cliente&filter[modelcode]=FILES1');
      assert.deepEqual(ofCustomer.body, [], 'a deleted customer leaves no link');
      assert.equal((await t().call('GET', `/api/3/attachedfiles/${file.idfile}`)).status, 200, 'the file itself stays');
    });

    it('announces uploads, replacements and deletions after they commit', async () => {
      const seen: string[] = [];
      const stops = [
        t().app.ctx.events.on('file.uploaded', (event) => void seen.push(`uploaded:${event.file.filename}:${event.replaced}`)),
        t().app.ctx.events.on('file.deleted', (event) => void seen.push(`deleted:${event.file.filename}`)),
      ];
      try {
        const [file] = (await upload(t(), '/api/3/uploadFiles', [{ name: 'event.txt', content: 'e' }])).json();
        await upload(t(), `/api/3/attachedfiles/${file.idfile}`, [{ field: 'file', name: 'event2.txt', content: 'f' }], {}, 'PATCH');
        await upload(t(), '/api/3/uploadFiles', [{ name: 'ok.txt', content: 'fine' }, { name: 'bad.php', content: 'x' }]);
        await t().call('DELETE', `/api/3/attachedfiles/${file.idfile}`);
        assert.deepEqual(seen, ['uploaded:event.txt:false', 'uploaded:event2.txt:true', 'deleted:event2.txt']);
      } finally {
        for (const stop of stops) stop();
      }
    });
  }, { config: { dataDir, filesStorage, ...LIMITS } });
}

describe('file storage crash repair (local)', () => {
  it('removes bytes linked by a transaction that never committed, and keeps those a record holds', { skip: !enabledEngines().includes('sqlite') }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'files-recover-'));
    const t = await startTestApp('sqlite', { config: { dataDir, filesStorage: 'local' } });
    try {
      const [kept] = (await upload(t, '/api/3/uploadFiles', [{ name: 'kept.txt', content: 'kept' }])).json();
      const journal = path.join(dataDir, 'MyFiles', 'Tmp', 'journal');
      fs.mkdirSync(journal, { recursive: true });
      const orphan = 'MyFiles/2026/01/999_orphan.txt';
      fs.mkdirSync(path.join(dataDir, 'MyFiles', '2026', '01'), { recursive: true });
      fs.writeFileSync(path.join(dataDir, orphan), 'left by a crash');
      const old = new Date(Date.now() - 3_600_000);
      for (const [name, stored] of [['crashed.json', orphan], ['committed.json', kept.path]]) {
        fs.writeFileSync(path.join(journal, name), JSON.stringify({ path: stored }));
        fs.utimesSync(path.join(journal, name), old, old);
      }
      fs.writeFileSync(path.join(journal, 'running.json'), JSON.stringify({ path: 'MyFiles/2026/01/1000_running.txt' }));
      await t.app.runJob('files-recover');
      assert.ok(!fs.existsSync(path.join(dataDir, orphan)), 'the orphan is gone');
      assert.ok(fs.existsSync(path.join(dataDir, kept.path)), 'the committed file stays');
      assert.deepEqual(fs.readdirSync(journal), ['running.json'], 'a young entry may belong to a running transaction');
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a 50 MB upload', () => {
  for (const filesStorage of ['local', 'database'] as const) {
    it(`streams to ${filesStorage} storage with flat memory`, { skip: !enabledEngines().includes('sqlite') }, async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'files-big-'));
      const t = await startTestApp('sqlite', { config: { dataDir, filesStorage, uploadMaxFileBytes: 64 * 1_048_576, uploadMaxRequestBytes: 64 * 1_048_576 } });
      try {
        await t.app.server.listen({ port: 0, host: '127.0.0.1' });
        const { port } = t.app.server.server.address() as { port: number };
        const size = 50 * 1_048_576;
        const boundary = '----big-upload-boundary';
        const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
        const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
        const chunk = Buffer.alloc(256 * 1024, 7);
        // What the process retains while the upload streams (collected before each sample, so
        // garbage is not counted; sampled every 5 MiB sent): a buffering upload would hold the
        // whole 50 MiB at some point.
        v8.setFlagsFromString('--expose-gc');
        const gc = vm.runInNewContext('gc') as () => void;
        gc();
        const before = process.memoryUsage();
        let peak = 0;
        let samples = 0;
        async function* body() {
          yield head;
          for (let sent = 0; sent < size; sent += chunk.length) {
            if (sent % (20 * chunk.length) === 0 && sent > 0) {
              // Let the server take in what was sent so far, then look.
              await new Promise((resolve) => setTimeout(resolve, 20));
              gc();
              const now = process.memoryUsage();
              peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
              samples += 1;
            }
            yield chunk;
          }
          yield tail;
        }
        const response = await fetch(`http://127.0.0.1:${port}/api/3/uploadFiles`, {
          method: 'POST',
          headers: { 'x-auth-token': 'test-global-key-0123456789', 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
          body: ReadableStream.from(body()),
          duplex: 'half',
        } as RequestInit);
        const files = (await response.json()) as Array<{ size: number; path: string }>;
        assert.equal(response.status, 200, JSON.stringify(files));
        assert.equal(files[0]!.size, size);
        assert.ok(samples >= 2 && peak < 16 * 1_048_576, `retained memory grew by ${(peak / 1_048_576).toFixed(1)} MiB for a 50 MiB upload (${samples} samples)`);
        const stored = filesStorage === 'local'
          ? fs.statSync(path.join(dataDir, files[0]!.path)).size
          : (await t.app.ctx.database.kysely.selectFrom('file_contents').select('data').where('path', '=', files[0]!.path).execute()).reduce((sum, row) => sum + (row.data as Buffer).length, 0);
        assert.equal(stored, size);
      } finally {
        await t.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});
