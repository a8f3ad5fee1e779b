/**
 * What an import did and found (docs/migration.md, "Reading the report"): the same whether it
 * wrote (and committed) or only checked (`--dry-run`), as text for a person and as JSON.
 */

/** A few examples of each warning: enough to find them, not a copy of the books. */
const EXAMPLES = 10;

export interface Example {
  table: string;
  key: unknown;
  column?: string;
  value?: unknown;
}

/** Warnings gathered while copying, by code (`invalid-date`, `refused-today:invalid-iban` ...). */
export class ImportFindings {
  readonly warnings = new Map<string, { count: number; examples: Example[] }>();

  warn(code: string, table: string, key: unknown, column?: string, value?: unknown): void {
    let entry = this.warnings.get(code);
    if (!entry) this.warnings.set(code, (entry = { count: 0, examples: [] }));
    entry.count++;
    if (entry.examples.length < EXAMPLES) entry.examples.push({ table, key, ...(column ? { column } : {}), ...(value === undefined ? {} : { value }) });
  }

  list(): Array<{ code: string; count: number; examples: Example[] }> {
    return [...this.warnings].map(([code, entry]) => ({ code, ...entry })).sort((a, b) => a.code.localeCompare(b.code));
  }
}

/** Runs a step and records its seconds under `name`. */
export type Timed = <T>(name: string, step: () => Promise<T>) => Promise<T>;

export function timer(phases: Record<string, number>): Timed {
  return async (name, step) => {
    const started = performance.now();
    try {
      return await step();
    } finally {
      phases[name] = Number(((performance.now() - started) / 1000).toFixed(3));
    }
  };
}

/** A comparison of source and target (per table, per serie and year, per sub-account ...). */
export interface Check<T> {
  compared: number;
  mismatches: T[];
}

export interface ImportReport {
  source: { engine: string; url: string };
  target: { engine: string };
  dryRun: boolean;
  committed: boolean;
  seconds: number;
  tables: Array<{ table: string; rows: number; seconds: number; notImported: string[]; notInSource: string[] }>;
  /** Seconds of each step after the copy (derived state, verification), for whoever measures it. */
  phases: Record<string, number>;
  notImported: {
    /** The source's tables without a model here, with their rows. */
    tables: Array<{ table: string; rows: number }>;
    /** The source's columns we have no place for, with how many rows hold a value in them. */
    columns: Array<{ table: string; column: string; rows: number }>;
    /** The system's tables the source does not have. */
    absentTables: string[];
  };
  warnings: Array<{ code: string; count: number; examples: Example[] }>;
  /** What the source holds that the import took as it was and rebuilt (stale balances, unprocessed work ...). */
  findings: Array<{ code: string; count: number; detail?: unknown }>;
  keys: { imported: number; profile: string; kept: Array<{ id: number; from: number; description: string }> };
  users: { imported: number; note: string };
  files?: { copied: number; missing: Array<{ idfile: number; path: string }> };
  verification: {
    clean: boolean;
    counts: Check<{ table: string; source: number; target: number }>;
    sums: Check<{ table: string; group: string; column: string; source: number; target: number }>;
    trialBalance: Check<{ codejercicio: string; codsubcuenta: string; source: { debe: number; haber: number }; target: { debe: number; haber: number } }>;
    /** Documents our calculation totals differently from what the source stored: listed, not changed. */
    calculator: { checked: number; count: number; differences: Array<{ table: string; id: number; codigo: string; field: string; stored: number; computed: number }> };
  };
}

const number = (value: number) => value.toLocaleString('en-US');

/** The report as text, for a terminal. */
export function renderReport(report: ImportReport): string {
  const lines: string[] = [];
  const verdict = report.dryRun ? 'DRY RUN: checked, nothing written' : report.committed ? 'IMPORTED' : 'NOT IMPORTED';
  lines.push(`${verdict}: ${report.source.url} (${report.source.engine}) -> ${report.target.engine} in ${report.seconds.toFixed(1)} s`);
  lines.push('', 'Tables');
  for (const table of report.tables) lines.push(`  ${table.table.padEnd(28)} ${number(table.rows).padStart(12)} rows  ${table.seconds.toFixed(1).padStart(6)} s`);
  const v = report.verification;
  lines.push('', `Verification: ${v.clean ? 'clean' : 'DIFFERENCES'}`);
  lines.push(`  row counts          ${v.counts.compared} tables, ${v.counts.mismatches.length} differ`);
  lines.push(`  money sums          ${v.sums.compared} sums per table, serie and year, ${v.sums.mismatches.length} differ`);
  lines.push(`  trial balance       ${v.trialBalance.compared} sub-accounts, ${v.trialBalance.mismatches.length} differ`);
  lines.push(`  calculation         ${v.calculator.checked} documents, ${v.calculator.count} totalled differently by this service (kept as stored)`);
  for (const item of [...v.counts.mismatches, ...v.sums.mismatches, ...v.trialBalance.mismatches]) lines.push(`    ${JSON.stringify(item)}`);
  for (const item of v.calculator.differences) lines.push(`    ${item.table} ${item.id} ${item.codigo}: ${item.field} stored ${item.stored}, computed ${item.computed}`);
  if (report.notImported.tables.length || report.notImported.columns.length || report.notImported.absentTables.length) {
    lines.push('', 'Not imported');
    for (const table of report.notImported.tables) lines.push(`  table ${table.table} (${number(table.rows)} rows): no model here`);
    for (const column of report.notImported.columns) lines.push(`  column ${column.table}.${column.column} (${number(column.rows)} rows with a value): no such column here`);
    for (const table of report.notImported.absentTables) lines.push(`  table ${table}: not in the source (left as a new installation has it)`);
  }
  if (report.findings.length) {
    lines.push('', 'Found in the source (taken as it was, derived state rebuilt)');
    for (const finding of report.findings) lines.push(`  ${finding.code}: ${number(finding.count)}${finding.detail === undefined ? '' : ` ${JSON.stringify(finding.detail)}`}`);
  }
  if (report.warnings.length) {
    lines.push('', 'Warnings (imported as stored)');
    for (const warning of report.warnings) {
      lines.push(`  ${warning.code}: ${number(warning.count)}`);
      for (const example of warning.examples) lines.push(`    ${example.table} ${String(example.key)}${example.column ? `.${example.column}` : ''}${example.value === undefined ? '' : ` = ${JSON.stringify(example.value)}`}`);
    }
  }
  lines.push('', `API keys: ${report.keys.imported} imported (tokens kept, stored digested; profile ${report.keys.profile})${report.keys.kept.length ? `; this installation's own kept as ${report.keys.kept.map((key) => `${key.id} (was ${key.from})`).join(', ')}` : ''}`);
  lines.push(`Users: ${report.users.imported} imported; ${report.users.note}`);
  if (report.files) {
    lines.push(`Files: ${report.files.copied} copied${report.files.missing.length ? `; ${report.files.missing.length} named by the database but not in the folder:` : ''}`);
    for (const file of report.files.missing) lines.push(`  ${file.idfile} ${file.path}`);
  }
  return lines.join('\n');
}
