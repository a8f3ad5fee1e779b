/**
 * Servers the benchmark measures, each run as its own process (`node bench/servers.ts <kind>`),
 * printing `{"port":N}` on its first stdout line once it listens:
 * - `baseline`: plain node:http answering a fixed JSON body (the ceiling on this machine). The
 *   body is a customer record as the API returns it: autocannon shares the two cores and its cost
 *   grows with the response size, so a tiny body would make every real endpoint look slower;
 * - `app`: the service on a fresh SQLite database in a temporary folder (or on the empty database
 *   `BENCH_DATABASE_URL` names), with sample data.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { customerModel } from '../src/modules/customers/customer-model.ts';

import { BENCH_KEY } from './bench-key.ts';

async function baseline(): Promise<number> {
  const record: Record<string, unknown> = {};
  for (const name of customerModel.visibleFields) record[name] = null;
  Object.assign(record, { codcliente: '42', nombre: 'Customer 42', razonsocial: 'Customer 42', cifnif: 'B42', debaja: false, fechaalta: '2026-11-21', personafisica: true, regimeniva: 'General' });
  const body = JSON.stringify(record);
  const server = http.createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function app(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'invoicing-bench-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const databaseUrl = process.env.BENCH_DATABASE_URL || `sqlite:${path.join(dir, 'bench.sqlite')}`;
  const config = { ...loadConfig({}), databaseUrl, dataDir: dir, apiKey: BENCH_KEY, logLevel: 'silent' as const };
  const instance = await createApp({ config, logger: false });
  const { store, registry } = instance.ctx;
  for (let i = 1; i <= 100; i++) {
    await store.create(registry.get('cliente')!, { codcliente: String(i), nombre: `Customer ${i}`, cifnif: `B${i}` });
  }
  // Products for the invoice scenario (sold without stock control limits).
  for (let i = 1; i <= 5; i++) {
    await store.create(registry.get('producto')!, { referencia: `BENCH${i}`, descripcion: `Bench product ${i}`, precio: 9.99 + i, ventasinstock: true, codimpuesto: 'IVA21' });
  }
  // The export scenario's invoice: 20 lines, id 1 (made before any other invoice).
  const lineas = Array.from({ length: 20 }, (_, i) => ({ referencia: `BENCH${(i % 5) + 1}`, descripcion: `Bench line ${i + 1} with a description of ordinary length`, cantidad: i + 1, dtopor: i % 3 === 0 ? 5 : 0 }));
  const made = await instance.server.inject({ method: 'POST', url: '/api/3/crearFacturaCliente', headers: { 'x-auth-token': BENCH_KEY }, payload: { codcliente: '42', lineas } });
  if (made.statusCode !== 200 || made.json().doc.idfactura !== 1) throw new Error(`export invoice: ${made.statusCode} ${made.body.slice(0, 200)}`);
  await instance.server.listen({ port: 0, host: '127.0.0.1' });
  return (instance.server.server.address() as { port: number }).port;
}

const kind = process.argv[2];
const port = kind === 'baseline' ? await baseline() : kind === 'app' ? await app() : undefined;
if (port === undefined) {
  console.error('usage: node bench/servers.ts baseline|app');
  process.exit(2);
}
console.log(JSON.stringify({ port }));
process.on('SIGTERM', () => process.exit(0));
