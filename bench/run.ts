/**
 * `npm run bench`: loopback load tests, bounded in time, that start and stop their own servers,
 * check the targets of bench/scenarios.ts, print the table, write it to docs/benchmarks.md and
 * exit 1 on a missed target, a failed request, a gap in the invoice numbers or a server whose peak
 * memory passed the limit. Figures are ratios to a plain node:http server measured in the same
 * run, because these machines are shared and noisy.
 * Knobs: BENCH_SECONDS (5), BENCH_CONNECTIONS (50), BENCH_ONLY (scenarios whose name contains it),
 * BENCH_ENGINES (default: sqlite, plus postgres/mysql when TEST_POSTGRES_URL/TEST_MYSQL_URL are
 * set), BENCH_GROWTH=0 (skip the 100,000-row scenarios), BENCH_WRITE=0 (do not write the doc).
 */
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { BENCH_KEY } from './bench-key.ts';
import { checkInvoiceNumbers } from './invoice-numbers.ts';
import { GROWTH_SCENARIOS, GROWTH_TARGET, RSS_LIMIT_MIB, SCENARIOS, type Scenario } from './scenarios.ts';
import { peakRssMib, startServer, type Server } from './start-server.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY;
const engines = (process.env.BENCH_ENGINES ?? ['sqlite', process.env.TEST_POSTGRES_URL && 'postgres', process.env.TEST_MYSQL_URL && 'mysql'].filter(Boolean).join(','))
  .split(',').map((engine) => engine.trim()).filter(Boolean);
const growth = process.env.BENCH_GROWTH !== '0';
const selected = (list: Scenario[]) => list.filter((scenario) => !only || scenario.name.includes(only));

interface Figure {
  rps: number;
  p99: number;
  errors: number;
}

async function measure(server: Server, scenario: Scenario, path = scenario.path, duration = seconds): Promise<Figure> {
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}${path}`,
    method: scenario.method ?? 'GET',
    body: scenario.body,
    headers: { 'x-auth-token': scenario.restricted ? server.restrictedKey! : BENCH_KEY, 'content-type': 'application/json' },
    connections,
    duration,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx };
}

/** The `Link: rel="next"` target of a request (a page by cursor). */
async function nextLink(server: Server, path: string): Promise<string> {
  const answer = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: { 'x-auth-token': BENCH_KEY } });
  await answer.arrayBuffer();
  const link = /^<([^>]+)>; rel="next"$/.exec(answer.headers.get('link') ?? '');
  if (!link) throw new Error(`no next page for ${path}`);
  return link[1]!;
}

/**
 * Warm-up (JIT, statement caches, connection pools), then the measured run, then one read alone:
 * it waits behind the statements the server still has queued, so the next scenario starts on an
 * idle server.
 */
async function run(server: Server, scenario: Scenario, path?: string): Promise<Figure> {
  if (scenario.followLink) path = await nextLink(server, path ?? scenario.path);
  await measure(server, scenario, path, 1);
  const figure = await measure(server, scenario, path);
  const probe = scenario.method === 'POST' ? '/api/3/cliente/1' : path ?? scenario.path;
  await fetch(`http://127.0.0.1:${server.port}${probe}`, { headers: { 'x-auth-token': BENCH_KEY } }).then((answer) => answer.arrayBuffer());
  return figure;
}

const failures: string[] = [];
const lines: string[] = [];
const print = (line = '') => {
  console.log(line);
  lines.push(line);
};
const ratio = (value: number) => value.toFixed(3);

const servers: Server[] = [];
try {
  const baselineServer = await startServer(['baseline']);
  servers.push(baselineServer);
  const baseline = await run(baselineServer, { name: 'baseline', path: '/' });

  // Every engine's figures, by scenario.
  const table = new Map<string, Map<string, Figure>>();
  const memory = new Map<string, number>();
  const growthFigures: Array<{ name: string; small: Figure; large: Figure }> = [];
  for (const engine of engines) {
    const server = await startServer(['app', engine]);
    servers.push(server);
    if (growth && engine === 'sqlite') {
      // The small database's side of the growth comparison, before the creations add invoices.
      for (const scenario of selected(GROWTH_SCENARIOS)) growthFigures.push({ name: scenario.name, small: await run(server, scenario), large: undefined! });
    }
    for (const scenario of selected(SCENARIOS)) {
      const figure = await run(server, scenario);
      if (!table.has(scenario.name)) table.set(scenario.name, new Map());
      table.get(scenario.name)!.set(engine, figure);
      if (figure.errors) failures.push(`${scenario.name} [${engine}]: ${figure.errors} failed requests`);
      if (scenario.createsInvoices) {
        const problem = await checkInvoiceNumbers(server.port, BENCH_KEY);
        if (problem) failures.push(`${scenario.name} [${engine}]: ${problem}`);
      }
    }
    memory.set(engine, peakRssMib(server));
    server.child.kill('SIGTERM');
  }
  if (growth && engines.includes('sqlite') && growthFigures.length) {
    const large = await startServer(['app', 'sqlite', '--large']);
    servers.push(large);
    for (const [index, scenario] of selected(GROWTH_SCENARIOS).entries()) growthFigures[index]!.large = await run(large, scenario, scenario.largePath);
    memory.set('sqlite, 100k rows', peakRssMib(large));
    large.child.kill('SIGTERM');
  }

  print(`# Benchmarks`);
  print();
  print(`Written by \`npm run bench\` (${new Date().toISOString().slice(0, 10)}): ${seconds} s per scenario after a 1 s warm-up, ${connections} connections, loopback,`);
  print(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}). Each figure is requests/s as a ratio to a plain`);
  print(`\`node:http\` server answering a customer record, measured in the same run (${baseline.rps.toFixed(0)} req/s). Targets apply to SQLite.`);
  print();
  print(`| scenario | target | ${engines.map((engine) => `${engine} ratio | req/s | p99 ms`).join(' | ')} |`);
  print(`|---|---|${engines.map(() => '---|---|---').join('|')}|`);
  for (const scenario of selected(SCENARIOS)) {
    const figures = table.get(scenario.name)!;
    const cells = engines.map((engine) => {
      const figure = figures.get(engine)!;
      return `${ratio(figure.rps / baseline.rps)} | ${figure.rps.toFixed(0)} | ${figure.p99}`;
    });
    const sqlite = figures.get('sqlite');
    const met = scenario.target === undefined || !sqlite ? '' : sqlite.rps / baseline.rps >= scenario.target ? ' (met)' : ' (**missed**)';
    if (met.includes('missed')) failures.push(`${scenario.name}: ${ratio(sqlite!.rps / baseline.rps)} < ${scenario.target}`);
    print(`| ${scenario.name} | ${scenario.target === undefined ? '-' : `>= ${scenario.target}${met}`} | ${cells.join(' | ')} |`);
  }
  print();
  print(`Peak resident memory (limit ${RSS_LIMIT_MIB} MiB): ${[...memory].map(([engine, mib]) => `${engine} ${mib} MiB`).join(', ')}.`);
  for (const [engine, mib] of memory) if (mib >= RSS_LIMIT_MIB) failures.push(`peak RSS ${engine}: ${mib} MiB`);
  if (growthFigures.some((figure) => figure.large)) {
    print();
    print(`## Growth (SQLite): 1,000 customers and invoices against 101,000 of each`);
    print();
    print(`Requests/s on each database; the large one must keep at least ${GROWTH_TARGET} of the small one's rate.`);
    print();
    print('| scenario | small req/s | large req/s | large / small |');
    print('|---|---|---|---|');
    for (const { name, small, large } of growthFigures) {
      const share = large.rps / small.rps;
      if (share < GROWTH_TARGET) failures.push(`growth ${name}: ${ratio(share)} < ${GROWTH_TARGET}`);
      if (small.errors || large.errors) failures.push(`growth ${name}: failed requests`);
      print(`| ${name} | ${small.rps.toFixed(0)} | ${large.rps.toFixed(0)} | ${ratio(share)}${share < GROWTH_TARGET ? ' (**missed**)' : ''} |`);
    }
  }
  print();
  print(failures.length ? `Missed: ${failures.join('; ')}.` : 'Every target met.');
  if (process.env.BENCH_WRITE !== '0' && !only) fs.writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), `${lines.join('\n')}\n`);
} finally {
  for (const { child } of servers) if (child.exitCode === null) child.kill('SIGTERM');
}
process.exitCode = failures.length ? 1 : 0;
