import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { enabledEngines, scratchDatabase, type ScratchDatabase } from './helpers/engines.ts';
import { eventually } from './helpers/eventually.ts';
import { freePort } from './helpers/free-port.ts';

/**
 * The service is killed (SIGKILL) while it bills a daily recurring invoice's 120 due periods, and
 * started again: its billing job finishes the run, and every period is billed exactly once (one
 * invoice each, the invoices' numbers without a gap), none lost, none twice.
 */
const KEY = 'recurring-crash-global-key-0123456789';
const PERIODS = 120;
const root = path.resolve(import.meta.dirname, '..');

async function call(port: number, method: string, url: string, body?: unknown): Promise<{ status: number; body: any; total: number }> {
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: { 'x-auth-token': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), total: Number(response.headers.get('x-total-count')) };
}

async function start(url: string, dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, API_KEY: KEY, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', TIME_ZONE: 'Europe/Madrid' },
    stdio: 'ignore',
  });
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await call(port, 'GET', '/api/3/')).status === 200) return { child, port };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error('the service did not start');
}

const kill = (child: ChildProcess) => new Promise<void>((resolve) => {
  child.once('exit', () => resolve());
  child.kill('SIGKILL');
});

/** Today in Madrid, as the service's job reads it. */
function madridToday(offsetDays = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  return new Date(Date.parse(`${today}T00:00:00Z`) + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

for (const engine of enabledEngines()) {
  describe(`crash while billing recurring invoices [${engine}]`, () => {
    let scratch: ScratchDatabase | undefined;
    let running: ChildProcess | undefined;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-recurring-crash-'));
    after(async () => {
      if (running && running.exitCode === null && running.signalCode === null) await kill(running);
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it(`bills each of ${PERIODS} periods once across a kill -9 in the middle of the run`, async () => {
      scratch = await scratchDatabase(engine);
      const first = await start(scratch.url, dataDir);
      running = first.child;
      assert.equal((await call(first.port, 'POST', '/api/3/cliente', { codcliente: 'DAILY', nombre: 'Diaria', cifnif: '12345678Z' })).status, 201);
      const template = await call(first.port, 'POST', '/api/3/facturarecurrente', { codcliente: 'DAILY', periodicidad: 'day', fechainicio: madridToday(-(PERIODS - 1)) });
      assert.equal(template.status, 201, JSON.stringify(template.body));
      const id = template.body.idrecurrente;
      assert.equal((await call(first.port, 'POST', '/api/3/lineafacturarecurrente', { idrecurrente: id, descripcion: 'Alquiler diario', pvpunitario: 10 })).status, 201);
      // The run, killed once some of its invoices are in.
      const run = call(first.port, 'POST', '/api/3/generarFacturasRecurrentes', { idrecurrente: id }).catch(() => undefined);
      await eventually(async () => assert.ok((await call(first.port, 'GET', '/api/3/facturacliente?limit=1')).total >= 10), 60_000);
      await kill(first.child);
      await run;

      const second = await start(scratch.url, dataDir);
      running = second.child;
      const before = (await call(second.port, 'GET', `/api/3/facturarecurrenteperiodo?filter[idrecurrente]=${id}&limit=1`)).total;
      assert.ok(before > 0 && before < PERIODS, `killed in the middle: ${before} periods billed`);
      // The job ran at start; billing on demand as well races it, harmlessly.
      const again = await call(second.port, 'POST', '/api/3/generarFacturasRecurrentes', { idrecurrente: id });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body.failed, []);
      const periods = (await call(second.port, 'GET', `/api/3/facturarecurrenteperiodo?filter[idrecurrente]=${id}&sort[periodo]=ASC&limit=500`)).body as Array<Record<string, any>>;
      assert.deepEqual(periods.map((row) => row.periodo), Array.from({ length: PERIODS }, (_, i) => i), 'every period once, none lost');
      const invoices = (await call(second.port, 'GET', '/api/3/facturacliente?limit=500')).body as Array<Record<string, any>>;
      assert.equal(invoices.length, PERIODS, 'one invoice per period, none without its period');
      assert.deepEqual(invoices.map((row) => Number(row.numero)).sort((a, b) => a - b), Array.from({ length: PERIODS }, (_, i) => i + 1), 'numbers without a gap');
      assert.deepEqual(new Set(periods.map((row) => row.idfactura)), new Set(invoices.map((row) => row.idfactura)));
      const state = (await call(second.port, 'GET', `/api/3/facturarecurrente/${id}`)).body;
      assert.equal(state.generadas, PERIODS);
      assert.equal(state.proximafecha, madridToday(1));
      await kill(second.child);
    });
  });
}
