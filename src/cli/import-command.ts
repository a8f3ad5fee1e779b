import type { Core } from '../core.ts';
import { importFacturaScripts, ImportRefused, renderReport, type TableProgress } from '../modules/migration/index.ts';

export interface ImportCommandOptions {
  from?: string;
  files?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Where progress goes: a terminal's line rewritten in place, or one JSON line per table. */
export interface ProgressOutput {
  tty: boolean;
  write(text: string): void;
}

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

/** The progress of each table: rows, rows/s and the time left on a terminal; its totals as JSON once done otherwise. */
export function progressPrinter(output: ProgressOutput): (state: TableProgress) => void {
  return (state) => {
    const rate = state.seconds > 0 ? state.rows / state.seconds : 0;
    if (!output.tty) {
      if (state.done) output.write(`${JSON.stringify({ table: state.table, rows: state.rows, seconds: Number(state.seconds.toFixed(3)), rowsPerSecond: Math.round(rate) })}\n`);
      return;
    }
    const left = rate > 0 ? (state.total - state.rows) / rate : 0;
    const line = `${state.table.padEnd(28)} ${state.rows.toLocaleString('en-US').padStart(11)}/${state.total.toLocaleString('en-US')} rows  ${Math.round(rate).toLocaleString('en-US').padStart(8)} rows/s  ${clock(left)} left`;
    output.write(`\r\x1b[2K${line}${state.done ? '\n' : ''}`);
  };
}

/**
 * `import facturascripts --from <url> [--files <dir>] [--dry-run] [--json]`: the report on standard output (text,
 * or JSON), progress on standard error. Exit code 0 when imported (or a dry run found it would
 * be), 1 otherwise.
 */
export async function importCommand(core: Core, kind: string | undefined, options: ImportCommandOptions, print: (line: string) => void, progress: ProgressOutput): Promise<number> {
  if (kind !== 'facturascripts' || !options.from) {
    print('Usage: npm run cli -- import facturascripts --from <mysql://user:pass@host:port/db | postgres://...> [--files <MyFiles dir>] [--dry-run] [--json]');
    return 1;
  }
  try {
    const report = await importFacturaScripts(core.ctx, { from: options.from, files: options.files, dryRun: options.dryRun, progress: progressPrinter(progress) });
    print(options.json ? JSON.stringify(report, null, 2) : renderReport(report));
    return report.verification.clean && (report.committed || report.dryRun) ? 0 : 1;
  } catch (error) {
    if (!(error instanceof ImportRefused)) throw error;
    print(options.json ? JSON.stringify({ refused: error.message }) : `Not imported: ${error.message}`);
    return 1;
  }
}
