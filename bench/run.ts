/**
 * `npm run bench`: loopback load tests, bounded in time, that start and stop their own servers.
 * Figures are reported as ratios to a plain node:http server measured in the same run, because
 * these machines are shared and noisy. Knobs: BENCH_SECONDS (default 5), BENCH_CONNECTIONS (50),
 * BENCH_ONLY (run only the scenarios whose name contains it; the baseline always runs).
 */
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { BENCH_KEY } from './bench-key.ts';
import { startServer } from './start-server.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY;

interface Scenario {
  name: string;
  server: 'baseline' | 'app';
  method?: 'GET' | 'POST';
  path: string;
  body?: string;
}

const SCENARIOS: Scenario[] = [
  { name: 'baseline: node:http, fixed record', server: 'baseline', path: '/' },
  { name: 'GET one customer (auth + read)', server: 'app', path: '/api/3/cliente/42' },
  { name: 'GET customer list, 20 rows + count', server: 'app', path: '/api/3/cliente?limit=20&sort[nombre]=ASC' },
  { name: 'GET root listing (auth only)', server: 'app', path: '/api/3/' },
  { name: 'GET exportarFacturaCliente, 20-line PDF', server: 'app', path: '/api/3/exportarFacturaCliente/1' },
  {
    name: 'POST crearFacturaCliente, 5 lines',
    server: 'app',
    method: 'POST',
    path: '/api/3/crearFacturaCliente',
    body: JSON.stringify({
      codcliente: '42',
      lineas: [
        ...[1, 2, 3].map((i) => ({ referencia: `BENCH${i}`, cantidad: i })),
        { referencia: 'BENCH4', cantidad: 2, dtopor: 10 },
        { descripcion: 'Service', cantidad: 1, pvpunitario: 12.5 },
      ],
    }),
  },
];

async function measure(port: number, scenario: Scenario, duration = seconds) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${scenario.path}`,
    method: scenario.method ?? 'GET',
    body: scenario.body,
    headers: { 'x-auth-token': BENCH_KEY, 'content-type': 'application/json' },
    connections,
    duration,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

const servers = new Map<string, { port: number; child: ChildProcess }>();
try {
  const rows: Array<{ name: string; rps: number; p50: number; p99: number; errors: number }> = [];
  for (const scenario of SCENARIOS.filter((s, index) => index === 0 || !only || s.name.includes(only))) {
    if (!servers.has(scenario.server)) servers.set(scenario.server, await startServer(scenario.server));
    const { port } = servers.get(scenario.server)!;
    await measure(port, scenario, 1); // warm-up: JIT, statement cache, connection pool
    rows.push({ name: scenario.name, ...(await measure(port, scenario)) });
  }
  const base = rows[0]!.rps;
  console.log(`\n${seconds}s per scenario, ${connections} connections, loopback, node ${process.version}\n`);
  console.log('scenario'.padEnd(40), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'errors'.padStart(7), 'vs baseline'.padStart(12));
  for (const row of rows) {
    console.log(
      row.name.padEnd(40),
      row.rps.toFixed(0).padStart(9),
      String(row.p50).padStart(8),
      String(row.p99).padStart(8),
      String(row.errors).padStart(7),
      `${((row.rps / base) * 100).toFixed(1)}%`.padStart(12),
    );
  }
} finally {
  for (const { child } of servers.values()) child.kill('SIGTERM');
}
