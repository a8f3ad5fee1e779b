/**
 * `npm run bench:import`: the import of a large installation of the established system
 * (docs/migration.md), timed and measured. It makes a source on MariaDB (BENCH_MYSQL_URL, default
 * mysql://root@127.0.0.1:3306/test) of `BENCH_INVOICES` (100,000) sales invoices of 5 lines with
 * their receipts, payments and entries, plus purchases (about 1.5 million rows), then imports it
 * with the command line, as a process of its own, into a new installation on SQLite and on
 * PostgreSQL (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; BENCH_TARGETS
 * picks: `sqlite,postgres,mysql`). For each: the time, the rows per second of every table, the
 * verification, and the process's peak resident memory (VmHWM). Targets: under 5 minutes and
 * under 300 MiB each (issue 56; docs/benchmarks.md keeps the figures).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fillBooks } from '../test/helpers/facturascripts-books.ts';
import { createSource } from '../test/helpers/facturascripts-source.ts';
import { scratchDatabase } from '../test/helpers/engines.ts';
import type { Engine } from '../src/db/database.ts';

process.env.TEST_MYSQL_URL ??= process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
process.env.TEST_POSTGRES_URL ??= process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const INVOICES = Number(process.env.BENCH_INVOICES ?? 100_000);
const TARGETS = (process.env.BENCH_TARGETS ?? 'sqlite,postgres').split(',').map((name) => name.trim()) as Engine[];
const LIMITS = { seconds: 300, mib: 300 };
const root = path.resolve(import.meta.dirname, '..');

// One command first, so that every measured run starts with Node's compile cache warm (src/cli/entry.ts), as an operator's second command does.
spawnSync(process.execPath, ['src/cli/entry.ts', '--help'], { cwd: root, stdio: 'ignore' });

const started = performance.now();
const { connection, scratch } = await createSource('mysql');
let failed = false;
try {
  const facts = await fillBooks(connection, {
    customers: Math.max(12, Math.round(INVOICES / 50)), suppliers: 40, products: 200, salesPerYear: INVOICES / 2, purchasesPerYear: Math.round(INVOICES / 20), deliveryNotes: 20, maxLines: 5, lines: 5,
  });
  const rows = Object.values(facts.rows).reduce((sum, n) => sum + n, 0);
  console.log(`source: MariaDB, ${rows.toLocaleString('en-US')} rows (${INVOICES.toLocaleString('en-US')} sales invoices of 5 lines), made in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  for (const engine of TARGETS) {
    const target = await scratchDatabase(engine);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
    try {
      const result = await runImport(scratch.url, target.url, dataDir);
      const report = result.report;
      const ok = result.code === 0 && result.seconds < LIMITS.seconds && result.peakMiB < LIMITS.mib;
      failed ||= !ok;
      console.log(`\n${engine}: ${ok ? 'PASS' : 'FAIL'}  ${result.seconds.toFixed(1)} s (limit ${LIMITS.seconds}), peak RSS ${result.peakMiB.toFixed(0)} MiB (limit ${LIMITS.mib}), ${Math.round(rows / result.seconds).toLocaleString('en-US')} rows/s overall, verification ${report?.verification?.clean ? 'clean' : 'NOT clean'}, exit ${result.code}`);
      for (const line of result.tables.filter((table) => table.rows >= 1000)) console.log(`  ${line.table.padEnd(22)} ${line.rows.toLocaleString('en-US').padStart(10)} rows ${line.seconds.toFixed(1).padStart(7)} s ${line.rowsPerSecond.toLocaleString('en-US').padStart(9)} rows/s`);
      if (report) console.log(`  after the copy: ${Object.entries(report.phases).map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`).join(', ')}; documents checked by the calculation: ${report.verification.calculator.checked.toLocaleString('en-US')}`);
    } finally {
      await target.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await connection.close();
  await scratch.drop();
}
process.exitCode = failed ? 1 : 0;

interface Run {
  code: number;
  seconds: number;
  peakMiB: number;
  tables: Array<{ table: string; rows: number; seconds: number; rowsPerSecond: number }>;
  report?: { verification: { clean: boolean; calculator: { checked: number } }; phases: Record<string, number> };
}

/** The command line's import as a process of its own: its progress lines, its report, its peak resident memory. */
function runImport(from: string, databaseUrl: string, dataDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const begun = performance.now();
    // The command line's own flags (package.json's `cli`: the heap as `npm start` keeps it).
    const child = spawn(process.execPath, ['--max-semi-space-size=4', '--heap-growing-percent=100', 'src/cli/entry.ts', 'import', 'facturascripts', '--from', from, '--json'], {
      cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    const sample = () => {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
        peak = Math.max(peak, kib);
      } catch {
        // gone
      }
    };
    const timer = setInterval(sample, 100);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      sample();
    });
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      const tables = stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Run['tables'][number]);
      let report: Run['report'];
      try {
        report = JSON.parse(stdout);
      } catch {
        console.error(stdout.slice(0, 2000), stderr.slice(-2000));
      }
      resolve({ code: code ?? 1, seconds: (performance.now() - begun) / 1000, peakMiB: peak / 1024, tables, report });
    });
  });
}
