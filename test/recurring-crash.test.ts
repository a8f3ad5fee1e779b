import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { enabledEngines, scratchDatabase, type ScratchDatabase } from './helpers/engines.ts';
import { eventually } from './helpers/eventually.ts';
import { killService as kill, startService } from './helpers/service-process.ts';

/**
 * The service is killed (SIGKILL) while it bills a daily recurring invoice's 120 due periods, and
 * started again: its billing job finishes the run, and every period is billed exactly once (one
 * invoice each, the invoices' numbers without a gap), none lost, none twice.
 */
const KEY = 'recurring-crash-global-key-0123456789';
const PERIODS = 120;

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
      if (running) await kill(running);
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it(`bills each of ${PERIODS} periods once across a kill -9 in the middle of the run`, async () => {
      scratch = await scratchDatabase(engine);
      const first = await startService(scratch.url, dataDir, KEY, { TIME_ZONE: 'Europe/Madrid' });
      running = first.child;
      assert.equal((await first.call('POST', '/api/3/cliente', { codcliente: 'DAILY', nombre: 'Diaria', cifnif: '12345678Z' })).status, 201);
      const template = await first.call('POST', '/api/3/facturarecurrente', { codcliente: 'DAILY', periodicidad: 'day', fechainicio: madridToday(-(PERIODS - 1)) });
      assert.equal(template.status, 201, JSON.stringify(template.body));
      const id = template.body.idrecurrente;
      assert.equal((await first.call('POST', '/api/3/lineafacturarecurrente', { idrecurrente: id, descripcion: 'Alquiler diario', pvpunitario: 10 })).status, 201);
      // The run, killed once some of its invoices are in.
      const run = first.call('POST', '/api/3/generarFacturasRecurrentes', { idrecurrente: id }).catch(() => undefined);
      await eventually(async () => assert.ok((await first.call('GET', '/api/3/facturacliente?limit=1')).total >= 10), 60_000);
      await kill(first.child);
      await run;

      const second = await startService(scratch.url, dataDir, KEY, { TIME_ZONE: 'Europe/Madrid' });
      running = second.child;
      const before = (await second.call('GET', `/api/3/facturarecurrenteperiodo?filter[idrecurrente]=${id}&limit=1`)).total;
      assert.ok(before > 0 && before < PERIODS, `killed in the middle: ${before} periods billed`);
      // The job ran at start; billing on demand as well races it, harmlessly.
      const again = await second.call('POST', '/api/3/generarFacturasRecurrentes', { idrecurrente: id });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body.failed, []);
      const periods = (await second.call('GET', `/api/3/facturarecurrenteperiodo?filter[idrecurrente]=${id}&sort[periodo]=ASC&limit=500`)).body as Array<Record<string, any>>;
      assert.deepEqual(periods.map((row) => row.periodo), Array.from({ length: PERIODS }, (_, i) => i), 'every period once, none lost');
      const invoices = (await second.call('GET', '/api/3/facturacliente?limit=500')).body as Array<Record<string, any>>;
      assert.equal(invoices.length, PERIODS, 'one invoice per period, none without its period');
      assert.deepEqual(invoices.map((row) => Number(row.numero)).sort((a, b) => a - b), Array.from({ length: PERIODS }, (_, i) => i + 1), 'numbers without a gap');
      assert.deepEqual(new Set(periods.map((row) => row.idfactura)), new Set(invoices.map((row) => row.idfactura)));
      const state = (await second.call('GET', `/api/3/facturarecurrente/${id}`)).body;
      assert.equal(state.generadas, PERIODS);
      assert.equal(state.proximafecha, madridToday(1));
      await kill(second.child);
    });
  });
}
