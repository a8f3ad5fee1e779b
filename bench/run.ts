/**
 * `npm run bench`: loopback load tests, bounded in time, that start and stop their own servers,
 * check the targets of bench/scenarios.ts, print the table, write it to docs/benchmarks.md and
 * exit 1 on a missed target, a failed request, a gap in the invoice numbers, a server over its
 * memory limits (at rest, and at the peak of the read and creation scenarios), or admin console
 * JavaScript over its weight (bench/console-weight.ts); then the in-process PDF bench
 * (bench/export-pdf.ts). Figures are the best of two rounds, as ratios to the stack's own ceiling
 * measured in the same run, in turn with the scenario where it has a target (SQLite), or to
 * SQLite's figure (the other engines), with the servers and the load generator on separate CPUs
 * where the machine has two, because these machines are shared and noisy.
 *
 * `npm run bench -- --large [--customers N] [--invoices N]`: only the growth scenarios, on SQLite
 * and PostgreSQL, comparing the small database with books of a million customers and invoices
 * (or N) written by bench/large-data.ts; the table goes to the large section of docs/benchmarks.md.
 *
 * Knobs: BENCH_SECONDS (5), BENCH_CONNECTIONS (50), BENCH_ONLY (scenarios whose name contains it),
 * BENCH_ENGINES (default: sqlite, plus postgres/mysql when TEST_POSTGRES_URL/TEST_MYSQL_URL are
 * set; postgres only with --large), BENCH_GROWTH=0 (skip the growth scenarios), BENCH_ROUNDS (2:
 * growth figures are the best of that many alternated runs), BENCH_WRITE=0 (do not write the doc).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_KEY } from './bench-key.ts';
import { CONSOLE_JS_LIMIT_BYTES, consoleWeight } from './console-weight.ts';
import { checkInvoiceNumbers } from './invoice-numbers.ts';
import { SMALL_BOOKS } from './sample-data.ts';
import { arrangeCreationData } from './creation-data.ts';
import { cpuPerRequest, readCpu } from './process-cpu.ts';
import { BASELINE_REF, CREATION_ROUNDS, GROWTH_SCENARIOS, GROWTH_TARGET, IDLE_RSS_LIMIT_MIB, LARGE_TARGET, RSS_LIMIT_MIB, SCENARIOS, START_REF, type Scenario } from './scenarios.ts';
import { peakRssMib, pinning, rssMib, startServer, type Server } from './start-server.ts';

const { values: args } = parseArgs({ options: { large: { type: 'boolean', default: false }, customers: { type: 'string' }, invoices: { type: 'string' } } });
const large = args.large!;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY;
const defaultEngines = large ? ['sqlite', process.env.TEST_POSTGRES_URL && 'postgres'] : ['sqlite', process.env.TEST_POSTGRES_URL && 'postgres', process.env.TEST_MYSQL_URL && 'mysql'];
const engines = (process.env.BENCH_ENGINES ?? defaultEngines.filter(Boolean).join(','))
  .split(',').map((engine) => engine.trim()).filter(Boolean);
const growth = process.env.BENCH_GROWTH !== '0';
const bigBooks = { customers: Number(args.customers ?? (large ? 1_000_000 : 100_000)), invoices: Number(args.invoices ?? (large ? 1_000_000 : 100_000)) };
const growthTarget = large ? LARGE_TARGET : GROWTH_TARGET;
/** Growth figures are the best of this many alternated measurements of each side (the machine's noise is one-sided: it only slows). */
const growthRounds = Number(process.env.BENCH_ROUNDS ?? 2);
const selected = <T extends Scenario>(list: T[]) => list.filter((scenario) => !only || scenario.name.includes(only));
const count = (n: number) => n.toLocaleString('en-US');

interface Figure {
  rps: number;
  p99: number;
  errors: number;
  /** Requests answered in the run. */
  requests?: number;
  /** CPU per request over the measured run, ms (the creation phase): the server's, and its database server's. */
  cpu?: { service: number; database?: number };
}

async function measure(server: Server, scenario: Scenario, path = scenario.path, duration = seconds): Promise<Figure> {
  const { bodies } = scenario;
  let sent = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}${path}`,
    method: scenario.method ?? 'GET',
    body: scenario.body,
    headers: { 'x-auth-token': scenario.restricted ? server.restrictedKey! : BENCH_KEY, 'content-type': 'application/json' },
    // Bodies in turn, one per request.
    ...(bodies ? { requests: [{ method: scenario.method ?? 'GET', setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[sent++ % bodies.length] }) }] } : {}),
    connections,
    duration,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx, requests: result.requests.total };
}

/** A measured run with the CPU the server and its database server spent on it, per request. */
async function measureCpu(server: Server, scenario: Scenario, engine: string): Promise<Figure> {
  const before = readCpu(server.child.pid, engine);
  const figure = await measure(server, scenario);
  // Requests still in flight when autocannon stops are finished (and counted) once the server is idle again.
  await idle(server);
  const after = readCpu(server.child.pid, engine);
  return { ...figure, cpu: cpuPerRequest(before, after, figure.requests ?? 0, engine) };
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
 * Waits until the server is idle: autocannon stops with up to `connections` requests in flight,
 * which the server still runs after the run ends. A run started on their heels opens its
 * connections while the server is saturated, and those are accepted one per microtask chain
 * (one group commit on SQLite, tens of ms): the first requests of the next run then waited 1-2 s,
 * which showed as SQLite creation's p99 (1.0-1.7 s against 0.3 s with a pause between runs).
 * Idle here: two reads by key, 100 ms apart, each answered within 20 ms (on SQLite a read queues
 * behind every statement ahead of it; on PostgreSQL and MariaDB the pause lets the writes still
 * holding locks finish).
 */
async function idle(server: Server): Promise<void> {
  let fast = 0;
  for (let attempt = 0; attempt < 50 && fast < 2; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const answer = await fetch(`http://127.0.0.1:${server.port}/api/3/cliente/1`, { headers: { 'x-auth-token': BENCH_KEY } });
    await answer.arrayBuffer();
    if (!answer.ok) throw new Error(`the idle probe answered ${answer.status}`);
    fast = performance.now() - started < 20 ? fast + 1 : 0;
  }
  if (fast < 2) console.warn('the server did not turn idle within 5 s: the next run starts on a busy server');
}

/** Warm-up (JIT, statement caches, connection pools), then the measured run, each started on an idle server and leaving it idle. */
async function run(server: Server, scenario: Scenario, path?: string): Promise<Figure> {
  if (scenario.followLink) path = await nextLink(server, path ?? scenario.path);
  await measure(server, scenario, path, 1);
  await idle(server);
  const figure = await measure(server, scenario, path);
  await idle(server);
  return figure;
}

/** Every figure is the best of this many rounds: the machine's noise only slows. */
const ROUNDS = 2;

async function best(server: Server, scenario: Scenario): Promise<Figure> {
  let top: Figure | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    const figure = await run(server, scenario);
    top = !top || figure.rps > top.rps ? { ...figure, errors: figure.errors + (top?.errors ?? 0) } : { ...top, errors: top.errors + figure.errors };
  }
  return top!;
}

/** Each field's median over rounds (errors summed): one slow round does not set the figure, nor one lucky one. */
function medianOf(figures: Figure[]): Figure {
  const middle = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const half = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
  };
  const cpus = figures.map((figure) => figure.cpu).filter((cpu) => cpu !== undefined);
  const databases = cpus.map((cpu) => cpu.database).filter((value) => value !== undefined);
  return {
    rps: middle(figures.map((figure) => figure.rps)),
    p99: middle(figures.map((figure) => figure.p99)),
    errors: figures.reduce((sum, figure) => sum + figure.errors, 0),
    ...(cpus.length ? { cpu: { service: middle(cpus.map((cpu) => cpu.service)), ...(databases.length ? { database: middle(databases) } : {}) } } : {}),
  };
}

/**
 * The creation table: per scenario and engine, the median rate and its ratio to SQLite's, to the
 * same engine at START_REF (SQLite: also at BASELINE_REF), p99, and CPU per invoice (service,
 * database server) against START_REF's; the targets checked here.
 */
function printCreation(scenarios: Scenario[], created: Map<string, Map<string, Figure>>, engines: string[]): void {
  const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(2));
  print();
  print(`Invoice creation, ${connections} writers: medians of ${CREATION_ROUNDS} rounds, every server below measured in turn in each round (the engine's server at ${START_REF},`);
  print(`this issue's starting commit, beside it; SQLite also at ${BASELINE_REF}); CPU per invoice from /proc over the measured run: the service's process, and the database`);
  print('server\'s processes (PostgreSQL\'s backends, MariaDB\'s server), which run on either CPU.');
  print();
  print(`| scenario | engine | req/s | ratio to sqlite | at ${START_REF} req/s | ratio to ${START_REF} | p99 ms | service CPU ms/invoice (at ${START_REF}) | database CPU ms/invoice (at ${START_REF}) |`);
  print('|---|---|---|---|---|---|---|---|---|');
  for (const scenario of scenarios) {
    const figures = created.get(scenario.name)!;
    const sqlite = figures.get('sqlite@current');
    for (const engine of engines) {
      const now = figures.get(`${engine}@current`)!;
      const start = figures.get(`${engine}@${START_REF}`);
      const cells: string[] = [];
      if (engine === 'sqlite') {
        const old = figures.get(`sqlite@${BASELINE_REF}`);
        if (scenario.baselineTarget !== undefined) {
          const share = old ? now.rps / old.rps : undefined;
          const missed = share === undefined || share < scenario.baselineTarget;
          if (missed) failures.push(`${scenario.name} [sqlite]: ${share === undefined ? 'no baseline figure' : ratio(share)} < ${scenario.baselineTarget} x ${BASELINE_REF}`);
          cells.push(`${share === undefined ? '-' : ratio(share)} x ${BASELINE_REF} (${old ? old.rps.toFixed(0) : '-'}; >= ${scenario.baselineTarget}${missed ? ', **missed**' : ', met'})`);
        } else {
          cells.push('-');
        }
      } else {
        const share = sqlite ? now.rps / sqlite.rps : undefined;
        const missed = scenario.engineTarget !== undefined && share !== undefined && share < scenario.engineTarget;
        if (missed) failures.push(`${scenario.name} [${engine}]: ${ratio(share!)} < ${scenario.engineTarget} of SQLite's`);
        cells.push(`${share === undefined ? '-' : ratio(share)} (>= ${scenario.engineTarget}${missed ? ', **missed**' : ', met'})`);
      }
      let startCells = '- | -';
      if (start) {
        const share = now.rps / start.rps;
        const checked = engine !== 'sqlite' && scenario.startTarget !== undefined;
        const missed = checked && share < scenario.startTarget!;
        if (missed) failures.push(`${scenario.name} [${engine}]: ${ratio(share)} < ${scenario.startTarget} x ${START_REF}`);
        startCells = `${start.rps.toFixed(0)} | ${ratio(share)}${checked ? ` (>= ${scenario.startTarget}${missed ? ', **missed**' : ', met'})` : ''}`;
        if (now.cpu && start.cpu && now.cpu.service >= start.cpu.service) failures.push(`${scenario.name} [${engine}]: service CPU ${ms(now.cpu.service)} ms per invoice, not lower than ${ms(start.cpu.service)} at ${START_REF}`);
      }
      const limit = scenario.p99Limit !== undefined && now.p99 > scenario.p99Limit ? ' (**missed**)' : '';
      const cpu = `${ms(now.cpu?.service)} (${ms(start?.cpu?.service)})${now.cpu && start?.cpu && now.cpu.service >= start.cpu.service ? ' **not lower**' : ''}`;
      print(`| ${scenario.name} | ${engine} | ${now.rps.toFixed(0)} | ${cells[0]} | ${startCells} | ${now.p99}${limit} | ${cpu} | ${ms(now.cpu?.database)} (${ms(start?.cpu?.database)}) |`);
    }
  }
}

const failures: string[] = [];
const lines: string[] = [];
const print = (line = '') => {
  console.log(line);
  lines.push(line);
};
const ratio = (value: number) => value.toFixed(3);

const servers: Server[] = [];
const serve = async (args: string[], root?: string) => {
  const server = await startServer(args, root);
  servers.push(server);
  return server;
};

/**
 * A worktree of an earlier commit (BASELINE_REF, START_REF) beside this checkout, sharing its
 * installed packages (the commits must have the same dependencies), or why there is none.
 */
function baselineWorktree(ref = BASELINE_REF): { root: string; remove(): void } | { missing: string } {
  const repository = new URL('..', import.meta.url).pathname;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-baseline-'));
  fs.rmSync(root, { recursive: true, force: true });
  const added = spawnSync('git', ['-C', repository, 'worktree', 'add', '--detach', root, ref], { encoding: 'utf8' });
  if (added.status !== 0) return { missing: `no worktree of ${ref}: ${added.stderr.trim()}` };
  fs.symlinkSync(path.join(repository, 'node_modules'), path.join(root, 'node_modules'));
  return { root, remove: () => void spawnSync('git', ['-C', repository, 'worktree', 'remove', '--force', root]) };
}

/** The scenario on two servers, one round on each in turn, best of ROUNDS each. */
async function alternately(current: Server, baseline: Server, scenario: Scenario): Promise<[Figure, Figure]> {
  let tops: [Figure | undefined, Figure | undefined] = [undefined, undefined];
  for (let round = 0; round < ROUNDS; round++) {
    const keep = (top: Figure | undefined, figure: Figure) => (!top || figure.rps > top.rps ? { ...figure, errors: figure.errors + (top?.errors ?? 0) } : { ...top, errors: top.errors + figure.errors });
    const x = await run(current, scenario);
    const y = await run(baseline, scenario);
    tops = [keep(tops[0], x), keep(tops[1], y)];
  }
  return [tops[0]!, tops[1]!];
}

interface GrowthRun {
  engine: string;
  small: Map<string, Figure>;
  large: Map<string, Figure>;
  smallServer: Server;
  largeServer: Server;
  /** The large server's peak resident memory, MiB. */
  largeRss: number;
}

/**
 * The growth scenarios on a small and a large database of one engine, both servers up, each
 * scenario measured on one then the other (the machine's noise then falls on both alike);
 * creations are checked gap-free in the series they went to.
 */
async function runGrowth(engine: string): Promise<GrowthRun> {
  const smallServer = await serve(['app', engine]);
  const largeServer = await serve(['app', engine, '--books', `${bigBooks.customers},${bigBooks.invoices}`]);
  const growthRun: GrowthRun = { engine, small: new Map(), large: new Map(), smallServer, largeServer, largeRss: 0 };
  for (const scenario of selected(GROWTH_SCENARIOS)) {
    for (let round = 0; round < growthRounds; round++) {
      for (const [server, books, figures] of [[smallServer, SMALL_BOOKS, growthRun.small], [largeServer, bigBooks, growthRun.large]] as const) {
        const figure = await run(server, scenario, scenario.at?.(books));
        const best = figures.get(scenario.name);
        figures.set(scenario.name, best && best.rps >= figure.rps ? { ...best, errors: best.errors + figure.errors } : { ...figure, errors: figure.errors + (best?.errors ?? 0) });
        if (figure.errors) failures.push(`growth ${scenario.name} [${engine}, ${count(books.invoices)} invoices]: ${figure.errors} failed requests`);
        if (scenario.createsInvoices) {
          const problem = await checkInvoiceNumbers(server.port, BENCH_KEY, `filter[codserie]=A&filter[codejercicio]=${new Date().getFullYear()}`);
          if (problem) failures.push(`growth ${scenario.name} [${engine}]: ${problem}`);
        }
      }
    }
  }
  growthRun.largeRss = peakRssMib(largeServer);
  smallServer.child.kill('SIGTERM');
  largeServer.child.kill('SIGTERM');
  console.log(`${engine}: growth done (peak RSS of the large server ${growthRun.largeRss} MiB)`);
  return growthRun;
}

function printGrowth(runs: GrowthRun[]): void {
  const title = large ? 'Large books' : 'Growth';
  print(`## ${title}: ${count(SMALL_BOOKS.customers)} customers and invoices against ${count(bigBooks.customers)} customers and ${count(bigBooks.invoices)} invoices`);
  print();
  print(`Both databases also hold the sample data (1,000 customers "Customer N", one 20-line invoice). The books (bench/large-data.ts, \`npm run seed:large\`) spread the`);
  print(`invoices, two lines each, over 5 years and two series, a tenth of them among 5 customers. Requests/s on each database (best of ${growthRounds} alternated runs); the large one must keep`);
  print(`${ratio(growthTarget)} of the small one's rate (within ${large ? '1.2x' : '2x'})${large ? ', except the middle pages by offset, which are reported' : ''}.`);
  print();
  print(`| scenario | ${runs.map(({ engine }) => `${engine} small req/s | large req/s | large / small`).join(' | ')} |`);
  print(`|---|${runs.map(() => '---|---|---').join('|')}|`);
  for (const scenario of selected(GROWTH_SCENARIOS)) {
    const checked = !(large && scenario.reportOnly);
    const cells = runs.map(({ engine, small, large: big }) => {
      const [a, b] = [small.get(scenario.name)!, big.get(scenario.name)!];
      const share = b.rps / a.rps;
      const missed = checked && share < growthTarget;
      if (missed) failures.push(`growth ${scenario.name} [${engine}]: ${ratio(share)} < ${ratio(growthTarget)}`);
      return `${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${ratio(share)}${missed ? ' (**missed**)' : checked ? '' : ' (reported)'}`;
    });
    print(`| ${scenario.name} | ${cells.join(' | ')} |`);
  }
  const report = (server: Server) => `${server.reportPerSecond?.toFixed(1)}/s`;
  print(`| 12-month sales report (one query, in process) | ${runs.map(({ smallServer, largeServer }) => `${report(smallServer)} | ${report(largeServer)} | ${ratio(largeServer.reportPerSecond! / smallServer.reportPerSecond!)} (reported)`).join(' | ')} |`);
  print();
  print(`Database sizes: ${runs.map(({ engine, smallServer, largeServer }) => `${engine} ${smallServer.sizeMib} MiB small, ${largeServer.sizeMib} MiB large (written in ${largeServer.seedSeconds?.toFixed(0)} s)`).join('; ')}.`);
}

/** docs/benchmarks.md holds the main run, then the large run from the LARGE_MARK on: each run keeps the other's part. */
const LARGE_MARK = '<!-- npm run bench -- --large -->';
function writeDoc(): void {
  if (process.env.BENCH_WRITE === '0' || only) return;
  const file = new URL('../docs/benchmarks.md', import.meta.url);
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const at = old.indexOf(LARGE_MARK);
  const [main, big] = at < 0 ? [old, ''] : [old.slice(0, at), old.slice(at)];
  const text = `${lines.join('\n')}\n`;
  fs.writeFileSync(file, large ? `${main.trimEnd()}\n\n${LARGE_MARK}\n${text}` : `${text}${big ? `\n${big}` : ''}`);
}

try {
  const header = (what: string) => {
    print(`Written by \`${what}\` (${new Date().toISOString().slice(0, 10)}): ${seconds} s per scenario after a 1 s warm-up, ${connections} connections, loopback,`);
    print(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}).`);
  };
  if (large) {
    print('# Benchmarks on large books');
    print();
    header('npm run bench -- --large');
    print();
    const runs: GrowthRun[] = [];
    for (const engine of engines) runs.push(await runGrowth(engine));
    printGrowth(runs);
  } else {
    // The stack's ceilings (bench/stack-ceiling.ts): each request they can answer, best of two rounds,
    // by path (GET one and the restricted key's GET are the same request to them).
    const ceilings: { name: string; withSqlite: boolean; figures: Map<string, Figure> }[] = [];
    // The SQLite ceiling stays up: each SQLite scenario with a target is measured in turn with it.
    let sqliteCeiling: Server | undefined;
    for (const [name, withSqlite] of [['Fastify alone, no database', false], ['Fastify and one SQLite statement', true]] as const) {
      const server = await serve(withSqlite ? ['ceiling', 'sqlite'] : ['ceiling']);
      const figures = new Map<string, Figure>();
      for (const scenario of selected(SCENARIOS)) {
        if (scenario.ceiling === 'any' || (scenario.ceiling === 'sqlite' && withSqlite)) {
          if (!figures.has(scenario.path)) figures.set(scenario.path, await best(server, { ...scenario, restricted: false }));
        }
      }
      if (withSqlite) sqliteCeiling = server;
      else server.child.kill('SIGTERM');
      ceilings.push({ name, withSqlite, figures });
    }
    // For a SQLite scenario with a target, its figure is replaced by the one measured in turn with
    // the scenario: the machine's speed drifts over the minutes between the ceilings' round and the
    // scenario's, and the ratio with it (docs/performance.md, "How to measure").
    const ceiling = ceilings.find(({ withSqlite }) => withSqlite)!.figures;
    // Every engine's figures, by scenario; its memory at rest (a second process started on the
    // database the first one made) and at its peak through the read and creation scenarios.
    const table = new Map<string, Map<string, Figure>>();
    const memory: Array<{ engine: string; idle: number; peak: number; pdf: number }> = [];
    const keep = (scenario: Scenario, engine: string, figure: Figure) => {
      if (!table.has(scenario.name)) table.set(scenario.name, new Map());
      table.get(scenario.name)!.set(engine, figure);
      if (scenario.p99Limit !== undefined && figure.p99 > scenario.p99Limit) failures.push(`${scenario.name} [${engine}]: p99 ${figure.p99} ms > ${scenario.p99Limit} ms`);
      if (figure.errors) failures.push(`${scenario.name} [${engine}]: ${figure.errors} failed requests`);
    };
    const creation = selected(SCENARIOS).filter((scenario) => scenario.engineTarget !== undefined);
    const running = new Map<string, Server>();
    for (const engine of engines) {
      const server = await serve(['app', engine]);
      await arrangeCreationData(server.port);
      const opened = await serve(['open', server.databaseUrl!]);
      await fetch(`http://127.0.0.1:${opened.port}/api/3/cliente/42`, { headers: { 'x-auth-token': BENCH_KEY } }).then((answer) => answer.arrayBuffer());
      await new Promise((resolve) => setTimeout(resolve, 2000));
      memory.push({ engine, idle: rssMib(opened), peak: 0, pdf: 0 });
      opened.child.kill('SIGTERM');
      for (const scenario of selected(SCENARIOS)) {
        if (scenario.engineTarget !== undefined || scenario.pdf) continue;
        let figure: Figure;
        if (engine === 'sqlite' && sqliteCeiling && scenario.target !== undefined && scenario.ceiling && !scenario.ceilingPath) {
          const [current, top] = await alternately(server, sqliteCeiling, scenario);
          ceiling.set(scenario.path, top);
          figure = current;
        } else {
          figure = await best(server, scenario);
        }
        keep(scenario, engine, figure);
      }
      running.set(engine, server);
    }
    sqliteCeiling?.child.kill('SIGTERM');

    // Creation: every engine's server, and the same engine at START_REF (SQLite also at
    // BASELINE_REF), one run each in turn, round after round; each figure is the median of its
    // rounds, with the CPU the server and the database server spent per invoice.
    const startTree = creation.length ? baselineWorktree(START_REF) : undefined;
    if (startTree && 'missing' in startTree) failures.push(`start: ${startTree.missing}`);
    const oldTree = engines.includes('sqlite') && creation.some((scenario) => scenario.baselineTarget !== undefined) ? baselineWorktree(BASELINE_REF) : undefined;
    if (oldTree && 'missing' in oldTree) failures.push(`baseline: ${oldTree.missing}`);
    const contenders: Array<{ engine: string; at: string; server: Server }> = [];
    if (creation.length) {
      for (const engine of engines) {
        contenders.push({ engine, at: 'current', server: running.get(engine)! });
        for (const [ref, tree] of [[START_REF, startTree], ...(engine === 'sqlite' ? [[BASELINE_REF, oldTree] as const] : [])] as const) {
          if (!tree || !('root' in tree)) continue;
          const server = await serve(['app', engine], tree.root);
          await arrangeCreationData(server.port);
          contenders.push({ engine, at: ref, server });
        }
      }
    }
    const created = new Map<string, Map<string, Figure>>();
    for (const scenario of creation) {
      const rounds = new Map<string, Figure[]>();
      for (let round = 0; round < CREATION_ROUNDS; round++) {
        for (const { engine, at, server } of contenders) {
          if (at === BASELINE_REF && scenario.baselineTarget === undefined) continue;
          if (scenario.followLink) throw new Error('a creation scenario follows no link');
          await measure(server, scenario, scenario.path, 1);
          await idle(server);
          const figure = await measureCpu(server, scenario, engine);
          const key = `${engine}@${at}`;
          rounds.set(key, [...(rounds.get(key) ?? []), figure]);
        }
      }
      const medians = new Map([...rounds].map(([key, figures]) => [key, medianOf(figures)]));
      created.set(scenario.name, medians);
      for (const engine of engines) keep(scenario, engine, medians.get(`${engine}@current`)!);
      if (scenario.createsInvoices) {
        for (const { engine, at, server } of contenders) {
          const problem = await checkInvoiceNumbers(server.port, BENCH_KEY);
          if (problem) failures.push(`${scenario.name} [${engine}${at === 'current' ? '' : ` at ${at}`}]: ${problem}`);
        }
      }
    }
    for (const { at, server } of contenders) if (at !== 'current') server.child.kill('SIGTERM');
    for (const tree of [startTree, oldTree]) if (tree && 'root' in tree) tree.remove();
    for (const engine of engines) {
      const server = running.get(engine)!;
      const entry = memory.find((item) => item.engine === engine)!;
      entry.peak = peakRssMib(server);
      for (const scenario of selected(SCENARIOS)) if (scenario.pdf) keep(scenario, engine, await best(server, scenario));
      entry.pdf = peakRssMib(server);
      server.child.kill('SIGTERM');
    }
    const growthRun = growth && engines.includes('sqlite') ? await runGrowth('sqlite') : undefined;

    print('# Benchmarks');
    print();
    header('npm run bench');
    print(`Each figure is the best of ${ROUNDS} rounds, in requests/s; ${pinning.note}; the database servers run where the system puts them (not pinned: a`);
    print('database server has CPUs of its own where users run one, and its CPU per invoice is reported below). A SQLite figure\'s ratio is to the stack\'s own ceiling, measured in');
    print('turn with it: Fastify with one better-sqlite3 prepared statement answering the same request (bench/stack-ceiling.ts). PostgreSQL and MariaDB figures are ratios');
    print('to SQLite\'s in the same run. Invoice creation is in its own table below.');
    print();
    const others = engines.filter((engine) => engine !== 'sqlite');
    print(`| scenario | sqlite target | sqlite ratio | req/s | p99 ms | ceiling req/s |${others.map((engine) => ` ${engine} ratio to sqlite | req/s | p99 ms |`).join('')}`);
    print(`|---|---|---|---|---|---|${others.map(() => '---|---|---|').join('')}`);
    for (const scenario of selected(SCENARIOS)) {
      if (scenario.engineTarget !== undefined) continue;
      const figures = table.get(scenario.name)!;
      const sqlite = figures.get('sqlite');
      const top = ceiling.get(scenario.ceilingPath ?? scenario.path);
      let sqliteCells = '- | - | - | - | -';
      if (sqlite) {
        const share = top ? sqlite.rps / top.rps : undefined;
        const missed = scenario.target !== undefined && share !== undefined && share < scenario.target;
        if (missed) failures.push(`${scenario.name} [sqlite]: ${ratio(share!)} < ${scenario.target} of the ceiling`);
        sqliteCells = `${scenario.target === undefined ? '-' : `>= ${scenario.target}${missed ? ' (**missed**)' : ' (met)'}`} | ${share === undefined ? '-' : ratio(share)} | ${sqlite.rps.toFixed(0)} | ${sqlite.p99} | ${top ? top.rps.toFixed(0) : '-'}`;
      }
      const otherCells = others.map((engine) => {
        const figure = figures.get(engine)!;
        return ` ${sqlite ? ratio(figure.rps / sqlite.rps) : '-'} | ${figure.rps.toFixed(0)} | ${figure.p99} |`;
      });
      print(`| ${scenario.name} | ${sqliteCells} |${otherCells.join('')}`);
    }
    if (creation.length) printCreation(creation, created, engines);
    print();
    print(`The ceilings themselves (req/s): ${ceilings.map(({ name, figures }) => `${name}: ${[...figures].map(([path, figure]) => `${path} ${figure.rps.toFixed(0)}`).join(', ')}`).join('; ')}.`);
    print();
    print(`Resident memory (limits: ${IDLE_RSS_LIMIT_MIB} MiB at rest after starting on an existing database, ${RSS_LIMIT_MIB} MiB at the peak of the read and creation scenarios):`);
    for (const { engine, idle, peak, pdf } of memory) {
      print(`- ${engine}: ${idle} MiB at rest${idle > IDLE_RSS_LIMIT_MIB ? ' (**missed**)' : ''}, ${peak} MiB peak${peak > RSS_LIMIT_MIB ? ' (**missed**)' : ''}; ${pdf} MiB once the PDF scenario ran (reported).`);
      if (idle > IDLE_RSS_LIMIT_MIB) failures.push(`resident memory at rest [${engine}]: ${idle} MiB`);
      if (peak > RSS_LIMIT_MIB) failures.push(`peak resident memory [${engine}]: ${peak} MiB`);
    }
    if (growthRun) print(`- sqlite, ${count(bigBooks.invoices)} invoices (growth server, reported): ${growthRun.largeRss} MiB peak.`);
    const weight = consoleWeight();
    print();
    print(`Admin console JavaScript (limit ${CONSOLE_JS_LIMIT_BYTES / 1000} KB gzip): ${weight.files} files, ${(weight.bytes / 1000).toFixed(1)} KB, ${(weight.gzipBytes / 1000).toFixed(1)} KB gzip.`);
    if (weight.gzipBytes >= CONSOLE_JS_LIMIT_BYTES) failures.push(`admin console JavaScript: ${weight.gzipBytes} bytes gzip`);
    if (growthRun) {
      print();
      printGrowth([growthRun]);
    }
  }
  print();
  print(failures.length ? `Missed: ${failures.join('; ')}.` : 'Every target met.');
  writeDoc();
} finally {
  for (const { child } of servers) if (child.exitCode === null) child.kill('SIGTERM');
}
process.exitCode = failures.length ? 1 : 0;
if (!large && !only) {
  const pdf = spawnSync(process.execPath, [new URL('./export-pdf.ts', import.meta.url).pathname], { stdio: 'inherit' });
  if (pdf.status !== 0) process.exitCode = 1;
}
