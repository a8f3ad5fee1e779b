import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { enabledEngines, scratchDatabase, type ScratchDatabase } from './helpers/engines.ts';
import { killService as kill, startService } from './helpers/service-process.ts';

/**
 * The process is killed (SIGKILL) in the middle of a stream of invoice creations, then started
 * again on the same database: every invoice the client saw acknowledged is there, whole; nothing
 * half-written exists; the numbers have no gap.
 */
const KEY = 'crash-test-global-key-0123456789';
const ROUNDS = 3;

for (const engine of enabledEngines()) {
  describe(`crash during invoice creation [${engine}]`, () => {
    let scratch: ScratchDatabase | undefined;
    let running: ChildProcess | undefined;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-crash-'));
    after(async () => {
      if (running) await kill(running);
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it(`keeps every acknowledged invoice whole and the numbering gap-free over ${ROUNDS} kill -9 rounds`, async () => {
      scratch = await scratchDatabase(engine);
      const acknowledged = new Map<number, { codigo: string; total: number }>();
      for (let round = 0; round < ROUNDS; round++) {
        const { child, call } = await startService(scratch.url, dataDir, KEY);
        running = child;
        if (round === 0) assert.equal((await call('POST', '/api/3/cliente', { codcliente: 'CRASH', nombre: 'Crash' })).status, 201);
        // Four writers create invoices until the process dies under them.
        let stop = false;
        const writer = async () => {
          while (!stop) {
            try {
              const answer = await call('POST', '/api/3/crearFacturaCliente', {
                codcliente: 'CRASH',
                lineas: [{ descripcion: 'a', cantidad: 3, pvpunitario: 12.34 }, { descripcion: 'b', cantidad: 1, pvpunitario: 0.99, dtopor: 10 }],
              });
              if (answer.status === 200) acknowledged.set(answer.body.doc.idfactura, { codigo: answer.body.doc.codigo, total: answer.body.doc.total });
            } catch {
              return; // the connection died with the process
            }
          }
        };
        const writers = Array.from({ length: 4 }, writer);
        // Killed once this round has had a few creations acknowledged (however slow a loaded machine
        // makes them), then a random moment later: in the middle of the next ones.
        const before = acknowledged.size;
        const wanted = before + 1 + Math.floor(Math.random() * 3);
        for (let waited = 0; acknowledged.size < wanted && waited < 60_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.ok(acknowledged.size > before, `round ${round}: no creation acknowledged within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 100));
        await kill(child);
        stop = true;
        await Promise.all(writers);
      }

      const { child, call } = await startService(scratch.url, dataDir, KEY);
      running = child;
      const invoices = (await call('GET', '/api/3/facturacliente?filter[codcliente]=CRASH&limit=1000')).body as Array<Record<string, any>>;
      assert.ok(acknowledged.size >= ROUNDS, `only ${acknowledged.size} invoices were acknowledged`);
      const byId = new Map(invoices.map((invoice) => [invoice.idfactura, invoice]));
      for (const [id, seen] of acknowledged) {
        const stored = byId.get(id);
        assert.ok(stored, `acknowledged invoice ${seen.codigo} is missing`);
        assert.deepEqual({ codigo: stored.codigo, total: stored.total }, seen);
      }
      // Nothing partial: every stored invoice has both lines, totals that match them and receipts that add up.
      const expectedTotal = Math.round((3 * 12.34 + 0.99 * 0.9) * 1.21 * 100) / 100;
      for (const invoice of invoices) {
        const lines = (await call('GET', `/api/3/lineafacturacliente?filter[idfactura]=${invoice.idfactura}`)).body;
        assert.equal(lines.length, 2, `invoice ${invoice.codigo} has ${lines.length} lines`);
        assert.equal(invoice.total, expectedTotal, invoice.codigo);
        const receipts = (await call('GET', `/api/3/recibocliente?filter[idfactura]=${invoice.idfactura}`)).body as Array<{ importe: number }>;
        assert.equal(Math.round(receipts.reduce((sum, r) => sum + r.importe, 0) * 100) / 100, invoice.total, invoice.codigo);
      }
      const numbers = invoices.map((invoice) => Number(invoice.numero)).sort((a, b) => a - b);
      assert.deepEqual(numbers, Array.from({ length: numbers.length }, (_, i) => i + 1), 'numbers run 1..n without a gap');
      await kill(child);
      running = undefined;
    });
  });
}
