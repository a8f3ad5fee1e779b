/**
 * `npm run soak`: a sustained mixed load on loopback against the service on a fresh SQLite
 * database (or `BENCH_DATABASE_URL`): reads, invoice creations, payments, and key and settings
 * changes at the same time, SOAK_SECONDS (60) at SOAK_CONNECTIONS (50). It fails (exit 1) on any
 * 5xx, on any request that errs or times out (a stall), or when the server's memory keeps growing
 * after warm-up. Prints the figures docs/reliability.md records.
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import { BENCH_KEY } from './bench-key.ts';
import { startServer } from './start-server.ts';

const seconds = Number(process.env.SOAK_SECONDS ?? 60);
const connections = Number(process.env.SOAK_CONNECTIONS ?? 50);
const headers = { 'x-auth-token': BENCH_KEY, 'content-type': 'application/json' };
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Resident memory of a process, in MB (Linux). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const { port, child } = await startServer(['app']);
const base = `http://127.0.0.1:${port}`;
try {
  // Invoices to pay and unpay during the run.
  const invoiceIds: number[] = [];
  for (let i = 0; i < 40; i++) {
    const response = await fetch(`${base}/api/3/crearFacturaCliente`, { method: 'POST', headers, body: JSON.stringify({ codcliente: String(1 + (i % 100)), lineas: [{ descripcion: 'soak', cantidad: 1, pvpunitario: 10 + i }] }) });
    invoiceIds.push(((await response.json()) as { doc: { idfactura: number } }).doc.idfactura);
  }

  type Mix = { name: string; share: number; requests: autocannon.Request[] };
  const mixes: Mix[] = [
    {
      name: 'reads (one customer, filtered list, root)',
      share: 0.44,
      requests: [
        { method: 'GET', path: '/api/3/cliente/42' },
        { method: 'GET', path: '/api/3/cliente?filter[nombre_like]=customer%201&sort[nombre]=DESC&limit=20' },
        { method: 'GET', path: '/api/3/facturacliente?sort[idfactura]=DESC&limit=10' },
        { method: 'GET', path: '/api/3/' },
      ],
    },
    {
      name: 'invoice creations (3 lines)',
      share: 0.3,
      requests: [{
        method: 'POST',
        path: '/api/3/crearFacturaCliente',
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ codcliente: String(1 + Math.floor(Math.random() * 100)), lineas: [{ referencia: 'BENCH1', cantidad: 1 }, { referencia: 'BENCH2', cantidad: 2, dtopor: 5 }, { descripcion: 'Service', cantidad: 1, pvpunitario: 19.99 }] }),
        }),
      }],
    },
    {
      name: 'payments (pay and unpay)',
      share: 0.16,
      requests: [{
        method: 'POST',
        path: '/api/3/pagarFacturaCliente/1',
        setupRequest: (request) => ({ ...request, path: `/api/3/pagarFacturaCliente/${pick(invoiceIds)}`, body: JSON.stringify({ pagada: Math.random() < 0.5 }) }),
      }],
    },
    {
      name: 'key and settings changes',
      share: 0.1,
      requests: [
        { method: 'POST', path: '/api/3/apikey', setupRequest: (request) => ({ ...request, body: JSON.stringify({ description: `soak ${Math.random()}` }) }) },
        { method: 'PUT', path: '/api/3/settings/default', setupRequest: (request) => ({ ...request, body: JSON.stringify({ properties: { decimals: 2, codpago: 'CONT' } }) }) },
        { method: 'POST', path: '/api/3/apiaccess', setupRequest: (request) => ({ ...request, body: JSON.stringify({ idapikey: 1, resource: `r${Math.floor(Math.random() * 1e9)}`, allowget: true }) }) },
      ],
    },
  ];

  const memory: Array<{ at: number; rss: number }> = [];
  const started = Date.now();
  const sampler = setInterval(() => memory.push({ at: (Date.now() - started) / 1000, rss: rssOf(child.pid!) }), 1000);
  const only = process.env.SOAK_ONLY;
  const results = await Promise.all(mixes.filter((mix) => !only || only.split(',').some((part) => mix.name.startsWith(part))).map((mix) => autocannon({
    url: base,
    headers,
    connections: Math.max(1, Math.round(connections * mix.share)),
    duration: seconds,
    timeout: 10,
    requests: mix.requests,
  }).then((result) => ({ mix, result }))));
  clearInterval(sampler);

  const warm = memory.filter((m) => m.at >= seconds * 0.25 && m.at < seconds * 0.5).map((m) => m.rss);
  const late = memory.filter((m) => m.at >= seconds * 0.75).map((m) => m.rss);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const growth = (mean(late) - mean(warm)) / Math.max(1, mean(warm));
  const peak = Math.max(...memory.map((m) => m.rss));

  console.log(`\nsoak: ${seconds}s, ${connections} connections, loopback, node ${process.version}, ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'SQLite'}\n`);
  console.log('mix'.padEnd(44), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'max ms'.padStart(8), '2xx'.padStart(8), '4xx'.padStart(6), '5xx'.padStart(6), 'errors'.padStart(7));
  let failures = 0;
  for (const { mix, result } of results) {
    const errors = result.errors + result.timeouts;
    failures += result['5xx'] + errors;
    console.log(
      mix.name.padEnd(44), result.requests.average.toFixed(0).padStart(8), String(result.latency.p50).padStart(8), String(result.latency.p99).padStart(8),
      String(result.latency.max).padStart(8), String(result['2xx']).padStart(8), String(result['4xx']).padStart(6), String(result['5xx']).padStart(6), String(errors).padStart(7),
    );
  }
  console.log(`\nserver RSS: ${mean(warm).toFixed(0)} MB after warm-up, ${mean(late).toFixed(0)} MB in the last quarter (${(growth * 100).toFixed(1)} %), peak ${peak.toFixed(0)} MB`);
  const tooMuchGrowth = growth > 0.2;
  if (failures || tooMuchGrowth) {
    console.error(`soak failed: ${failures} 5xx/errored/timed-out requests${tooMuchGrowth ? ', memory still growing after warm-up' : ''}`);
    process.exitCode = 1;
  }
} finally {
  child.kill('SIGTERM');
}
