/**
 * Servers the benchmark measures, each run as its own process
 * (`node bench/servers.ts baseline | app [sqlite|postgres|mysql] [--large]`), printing
 * `{"port":N,"restrictedKey":...}` on its first stdout line once it listens:
 * - `baseline`: plain node:http answering a fixed JSON body (the ceiling on this machine). The
 *   body is a customer record as the API returns it: autocannon shares the two cores and its cost
 *   grows with the response size, so a tiny body would make every real endpoint look slower;
 * - `ceiling`, `ceiling sqlite`: Fastify alone, and Fastify with one SQLite statement per request
 *   (bench/stack-ceiling.ts), the most any endpoint of ours could reach;
 * - `app`: the service on a fresh database (SQLite in a temporary folder; PostgreSQL or MariaDB in
 *   a scratch database on TEST_POSTGRES_URL / TEST_MYSQL_URL, dropped at exit) with the sample
 *   data of bench/sample-data.ts; `--books C,I` sets the size of its books (default 1000,1000).
 *   The first line also says the database's size, the seconds the data took, and the 12-month
 *   sales report's rate (queries/s, timed in the process: there is no report endpoint), and its
 *   `databaseUrl`;
 * - `open <databaseUrl>`: the service started on that existing database, nothing added (what
 *   resident memory at rest is measured on).
 */
import http from 'node:http';
import module from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Engine } from '../src/db/database.ts';
import { scratchDatabase } from '../test/helpers/engines.ts';
import { BENCH_KEY } from './bench-key.ts';
import { databaseSizeMib, salesByMonth } from './large-data.ts';
import { addSampleData, SMALL_BOOKS } from './sample-data.ts';
import { customerRecord, stackCeiling } from './stack-ceiling.ts';

async function baseline(): Promise<object> {
  const body = JSON.stringify(customerRecord());
  const server = http.createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port };
}

async function app(engine: Engine, books: { customers: number; invoices: number }): Promise<object> {
  const dir = fs.mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'invoicing-bench-'));
  const scratch = engine === 'sqlite' ? undefined : await scratchDatabase(engine);
  const databaseUrl = scratch?.url ?? `sqlite:${path.join(dir, 'bench.sqlite')}`;
  const config = { ...loadConfig({}), databaseUrl, dataDir: dir, apiKey: BENCH_KEY, logLevel: 'silent' as const };
  const instance = await createApp({ config, logger: false });
  const stop = async () => {
    await instance.close().catch(() => {});
    await scratch?.drop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  const started = Date.now();
  const restrictedKey = await addSampleData(instance, books);
  const seedSeconds = (Date.now() - started) / 1000;
  const reportStart = performance.now();
  let reports = 0;
  while (performance.now() - reportStart < 2000 || reports < 3) {
    if (!(await salesByMonth(instance)).length) throw new Error('the sales report found no invoices');
    reports++;
  }
  const reportPerSecond = reports / ((performance.now() - reportStart) / 1000);
  await instance.server.listen({ port: 0, host: '127.0.0.1' });
  // As src/serve.ts does once it listens: the `open` server started next finds the compile cache warm.
  module.flushCompileCache?.();
  return { port: (instance.server.server.address() as { port: number }).port, restrictedKey, sizeMib: await databaseSizeMib(instance), seedSeconds, reportPerSecond, databaseUrl };
}

/** The service on an existing database, as `npm start` would open it: nothing seeded, nothing read ahead. */
async function open(databaseUrl: string): Promise<object> {
  const dir = fs.mkdtempSync(path.join(process.env.BENCH_DIR ?? os.tmpdir(), 'invoicing-bench-open-'));
  const instance = await createApp({ config: { ...loadConfig({}), databaseUrl, dataDir: dir, apiKey: BENCH_KEY, logLevel: 'silent' as const }, logger: false });
  process.once('SIGTERM', () => void instance.close().finally(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }));
  await instance.server.listen({ port: 0, host: '127.0.0.1' });
  return { port: (instance.server.server.address() as { port: number }).port };
}

const [kind, engine = 'sqlite', flag, size] = process.argv.slice(2);
const [customers, invoices] = flag === '--books' ? (size ?? '').split(',').map(Number) : [SMALL_BOOKS.customers, SMALL_BOOKS.invoices];
const valid = [customers, invoices].every((n) => Number.isInteger(n) && n! >= 1);
const started = kind === 'open' ? await open(process.argv[3]!) : kind === 'baseline' ? await baseline() : kind === 'ceiling' ? { port: await stackCeiling(process.argv[3] === 'sqlite') } : kind === 'app' && valid && ['sqlite', 'postgres', 'mysql'].includes(engine) ? await app(engine as Engine, { customers: customers!, invoices: invoices! }) : undefined;
if (started === undefined) {
  console.error('usage: node bench/servers.ts baseline | ceiling [sqlite] | app [sqlite|postgres|mysql] [--books CUSTOMERS,INVOICES] | open DATABASE_URL');
  process.exit(2);
}
console.log(JSON.stringify(started));
if (kind !== 'app' && kind !== 'open') process.once('SIGTERM', () => process.exit(0));
