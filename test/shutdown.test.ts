import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { enabledEngines, scratchDatabase } from './helpers/engines.ts';
import { startTestApp } from './helpers/test-app.ts';

/**
 * SIGTERM during a burst of invoice creations (the real process, `node src/main.ts`): every
 * creation the server acknowledged is in the database, numbers stay gap-free, nothing answers 5xx
 * but the 503 of a request that arrived while closing, and the process exits 0.
 */
const KEY = 'shutdown-test-key-0123456789';
const BURST = 60;

async function startService(env: Record<string, string>): Promise<{ port: number; exited: Promise<number | null>; child: ReturnType<typeof spawn> }> {
  const child = spawn(process.execPath, [path.resolve('src/main.ts')], { env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info', API_KEY: KEY }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    void exited.then((code) => reject(new Error(`service exited with ${code} before listening`)));
  });
  return { port, exited, child };
}

for (const engine of enabledEngines()) {
  describe(`graceful shutdown [${engine}]`, () => {
    it('finishes every acknowledged invoice of a burst cut by SIGTERM, and exits 0', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-shutdown-'));
      const scratch = engine === 'sqlite' ? undefined : await scratchDatabase(engine);
      const databaseUrl = scratch?.url ?? `sqlite:${path.join(dir, 'service.sqlite')}`;
      try {
        const service = await startService({ DATA_DIR: dir, DATABASE_URL: databaseUrl, SHUTDOWN_TIMEOUT_MS: '10000' });
        const base = `http://127.0.0.1:${service.port}/api/3`;
        const post = (url: string, body: unknown) => fetch(`${base}/${url}`, { method: 'POST', headers: { 'x-auth-token': KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal((await post('cliente', { codcliente: 'SHUT', nombre: 'Shutdown' })).status, 201);
        assert.equal((await post('producto', { referencia: 'SHUT1', precio: 5, ventasinstock: true })).status, 201);

        const outcomes = Array.from({ length: BURST }, async () => {
          try {
            const answer = await post('crearFacturaCliente', { codcliente: 'SHUT', lineas: [{ referencia: 'SHUT1', cantidad: 1 }, { descripcion: 'Work', cantidad: 2, pvpunitario: 7 }] });
            return { status: answer.status, body: answer.status === 200 ? ((await answer.json()) as { doc: { idfactura: number; numero: string } }) : undefined };
          } catch {
            return { status: 0, body: undefined }; // refused once the server stopped listening
          }
        });
        // SIGTERM while the burst is in flight: after the first acknowledged creation.
        await Promise.race(outcomes);
        service.child.kill('SIGTERM');
        const results = await Promise.all(outcomes);
        const started = Date.now();
        assert.equal(await service.exited, 0);
        const exitMs = Date.now() - started;

        const acknowledged = results.filter((result) => result.status === 200).map((result) => result.body!.doc);
        assert.ok(acknowledged.length >= 1);
        for (const result of results) assert.ok([0, 200, 503].includes(result.status), `status ${result.status}`);
        assert.ok(results.some((result) => result.status !== 200) || acknowledged.length === BURST);

        // After the exit, every acknowledged invoice is there, and the numbers are 1..n.
        const after = await startTestApp(engine, { url: databaseUrl });
        try {
          const rows = await after.app.ctx.database.kysely.selectFrom('facturascli').select(['idfactura', 'numero']).execute();
          const stored = new Set(rows.map((row) => Number(row.idfactura)));
          for (const doc of acknowledged) assert.ok(stored.has(doc.idfactura), `invoice ${doc.idfactura} acknowledged but missing`);
          assert.deepEqual(rows.map((row) => Number(row.numero)).sort((a, b) => a - b), rows.map((_, index) => index + 1));
          // The lines of each stored invoice are there too (nothing half written).
          const lines = await after.app.ctx.database.kysely.selectFrom('lineasfacturascli').select('idfactura').execute();
          assert.equal(lines.length, rows.length * 2);
        } finally {
          await after.app.close();
        }
        console.log(`# ${engine}: ${acknowledged.length} of ${BURST} acknowledged, ${results.filter((r) => r.status === 503).length} 503, ${results.filter((r) => r.status === 0).length} refused; exit ${exitMs} ms after the last answer`);
      } finally {
        await scratch?.drop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
