/**
 * `node bench/export-pdf.ts`: the CPU cost of rendering an invoice PDF, in process (no server).
 * Scenarios: a 20-line invoice (the budget: under ~30 ms of CPU) and a 300-line one
 * (several pages; the renderer yields to the event loop between pages, so the longest stall of
 * the loop is reported too). Figures are also given as a ratio to `JSON.stringify` of the same
 * view measured in the same run, because these machines are shared and noisy.
 * Knobs: BENCH_PDF_RUNS (default 200 renders of the 20-line invoice; a tenth of that for 300 lines).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExportView } from '../src/modules/export/export-view.ts';
import { renderPdf } from '../src/modules/export/pdf/render-pdf.ts';
import { exampleInvoiceView, line, withLines } from '../test/helpers/export-views.ts';

const runs = Number(process.env.BENCH_PDF_RUNS ?? 200);

/** The example invoice's eight lines repeated up to `count` lines. */
function invoiceOf(count: number): ExportView {
  const example = exampleInvoiceView();
  const lines = Array.from({ length: count }, (_, index) => line(index + 1, { ...example.lines[index % example.lines.length]!, position: index + 1 }));
  const view = withLines(example, lines);
  view.receipts = [{ number: 1, amount: view.totals.total, dueDate: view.dueDate ?? view.date, paid: false, paymentDate: null }];
  return view;
}

interface Measure {
  wallMs: number;
  cpuMs: number;
}

async function measure(n: number, work: () => unknown): Promise<Measure> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < n; i++) await work();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs: wall / n, cpuMs: (used.user + used.system) / 1000 / n };
}

const rows: Array<{ name: string; result: Measure; baseline: Measure; pages: number; stallMs?: number; bytes: number }> = [];
for (const [name, lineCount, n] of [['PDF, 20-line invoice', 20, runs], ['PDF, 300-line invoice', 300, Math.max(5, Math.round(runs / 10))]] as const) {
  const view = invoiceOf(lineCount);
  const sample = await renderPdf(view);
  for (let i = 0; i < Math.min(30, n); i++) await renderPdf(view); // warm-up: JIT, the fonts' glyph caches
  const baseline = await measure(n * 20, () => JSON.stringify(view));
  const result = await measure(n, () => renderPdf(view));
  // The longest the event loop waited while documents rendered one after another with a turn of
  // the loop between them (as concurrent requests would get).
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  for (let i = 0; i < Math.min(n, 50); i++) {
    await renderPdf(view);
    await nextTurn();
  }
  loop.disable();
  const pages = sample.toString('latin1').match(/\/Type \/Page\b/g)?.length ?? 0;
  rows.push({ name, result, baseline, pages, bytes: sample.length, stallMs: loop.max / 1e6 });
}

console.log(`\nin process, node ${process.version}\n`);
console.log('scenario'.padEnd(26), 'pages'.padStart(6), 'KiB'.padStart(6), 'wall ms'.padStart(9), 'CPU ms'.padStart(8), 'max stall ms'.padStart(13), 'vs JSON.stringify'.padStart(18));
for (const row of rows) {
  console.log(
    row.name.padEnd(26),
    String(row.pages).padStart(6),
    (row.bytes / 1024).toFixed(0).padStart(6),
    row.result.wallMs.toFixed(2).padStart(9),
    row.result.cpuMs.toFixed(2).padStart(8),
    (row.stallMs ?? 0).toFixed(1).padStart(13),
    `${(row.result.cpuMs / row.baseline.cpuMs).toFixed(0)}x`.padStart(18),
  );
}
