import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { copyFiles } from './copy-files.ts';
import { advanceSequences, copyTable, ImportRefused, refreshStatistics, writeDeferred, type Deferred, type TableProgress } from './copy-tables.ts';
import { planImport, type ImportPlan } from './import-plan.ts';
import { ImportFindings, timer, type ImportReport } from './import-report.ts';
import { adoptImportedKeys, ownKeys } from '../auth/index.ts';
import { mergeImportedSettings, settingsGroups } from '../settings/index.ts';
import { loadReferenceIn } from '../documents/index.ts';
import { disarmImportedUsers, IMPORTED_USERS_NOTE, userNicks } from '../users/index.ts';
import { clearTables, refuseUnlessFresh } from './installation-data.ts';
import { rebuildDerived } from './rebuild-derived.ts';
import { openSource, type SourceDatabase } from './source-database.ts';
import { verifyImport } from './verify-import.ts';

export interface ImportOptions {
  /** The source's URL: `mysql://...` (MariaDB or MySQL) or `postgres://...`. */
  from: string;
  /** The source's `MyFiles/` folder: the attached files' bytes are copied from it. */
  files?: string;
  /** Reads, checks and reports everything, and writes nothing (the transaction rolls back). */
  dryRun?: boolean;
  /** Told how each table's copy goes (the command line's progress). */
  progress?: (state: TableProgress) => void;
}

/** A dry run's way out of its transaction, carrying the report. */
class DryRunDone extends Error {
  readonly report: ImportReport;
  constructor(report: ImportReport) {
    super('dry run');
    this.report = report;
  }
}

/**
 * `import facturascripts`: an installation of the established system into this one (new: default
 * data only, no documents), all or nothing (docs/migration.md).
 * 1. The source is opened read-only on one snapshot; the target checked to be new, before anything
 *    is written.
 * 2. In one transaction of the target: the tables about to be copied are emptied (the source's
 *    default data replaces ours; this installation's own API keys are kept aside), every table
 *    with a model here copied with its keys (source-values.ts), the columns naming later rows
 *    written last, PostgreSQL's sequences moved past the keys; the source's keys digested, users
 *    disarmed, settings merged, our keys back; derived state rebuilt (rebuild-derived.ts); the
 *    whole verified against the source (verify-import.ts).
 * 3. Committed when the verification is clean (a dry run rolls back there); otherwise rolled
 *    back, the report saying why. A failure or an interruption anywhere leaves the target as it
 *    was: the transaction never committed. Running it again is safe: a committed import is no
 *    longer a new installation, and is refused.
 * The reference caches of running instances are bumped with the commit.
 */
export async function importFacturaScripts(ctx: AppContext, options: ImportOptions): Promise<ImportReport> {
  const started = performance.now();
  const source = await openSource(options.from);
  try {
    await refuseUnlessFresh(ctx);
    const plan = planImport(ctx.registry, await source.tables());
    if (!plan.tables.some((table) => table.model.table === 'empresas')) {
      throw new ImportRefused(`${source.shown} does not look like an installation of the established system: it has no table "empresas" (tables found: ${plan.unknownTables.slice(0, 10).map((table) => table.name).join(', ') || 'none'})`);
    }
    const notImported = await notImportedOf(source, plan);
    try {
      return await inTransaction(ctx.database, async (trx) => {
        const report = await copyAndVerify(ctx, trx, source, plan, options);
        report.notImported = notImported;
        report.seconds = (performance.now() - started) / 1000;
        if (options.dryRun) throw new DryRunDone(report);
        if (!report.verification.clean) throw new VerificationFailed(report);
        report.committed = true;
        return report;
      }, { attempts: 1 });
    } catch (error) {
      if (error instanceof DryRunDone) return error.report;
      if (error instanceof VerificationFailed) return error.report;
      throw error;
    }
  } finally {
    await source.close();
  }
}

/** A verification with differences: nothing is kept, and the report says what differed. */
class VerificationFailed extends Error {
  readonly report: ImportReport;
  constructor(report: ImportReport) {
    super('the imported books differ from the source');
    this.report = report;
  }
}

async function copyAndVerify(ctx: AppContext, trx: DbExecutor, source: SourceDatabase, plan: ImportPlan, options: ImportOptions): Promise<ImportReport> {
  const { dialect } = ctx.database;
  const findings = new ImportFindings();
  const phases: Record<string, number> = {};
  const time = timer(phases);
  // SQLite: a small page cache for the import's connection, whose one long transaction would
  // otherwise keep it full (16 MiB by default) beside what SQLite holds of the transaction itself.
  if (ctx.database.engine === 'sqlite') await sql`PRAGMA cache_size = -2000`.execute(trx);
  // Again inside the transaction: nothing written since the first look (a server left running) is lost.
  await refuseUnlessFresh(ctx, trx);
  const own = await ownKeys(trx);
  const ownSettings = await settingsGroups(trx);
  await clearTables(trx, plan.tables);
  const deferred: Deferred = [];
  const counts = new Map<string, number>();
  const tables: ImportReport['tables'] = [];
  for (const table of plan.tables) {
    const tableStarted = performance.now();
    const { rows, total } = await copyTable(source, trx, dialect, table, findings, deferred, options.progress ?? (() => {}));
    // The source's own count in the snapshot, not the rows the copy read: the verification then sees any row a page missed.
    counts.set(table.model.table, total);
    tables.push({ table: table.model.table, rows, seconds: (performance.now() - tableStarted) / 1000, notImported: table.notImported, notInSource: table.notInSource });
  }
  await writeDeferred(trx, dialect, deferred);
  const models = plan.tables.map((table) => table.model);
  await time('statistics', () => refreshStatistics(trx, dialect, models));
  await advanceSequences(trx, dialect, models);
  // This installation's own keys go back after the source's (their rules take the sequence's next
  // ids, the keys explicit ones past the source's): the keys' sequence moves past them again.
  const kept = counts.has('api_keys') ? await adoptImportedKeys(trx, own, await userNicks(trx)) : [];
  await advanceSequences(trx, dialect, models.filter((model) => model.table === 'api_keys'));
  const users = counts.has('users') ? await disarmImportedUsers(trx) : 0;
  if (counts.has('settings')) await mergeImportedSettings(trx, ownSettings);
  const files = options.files ? await time('files', () => copyFiles(ctx, trx, options.files!, findings)) : undefined;
  // The reference data as copied (the caches and other connections see the default data until the commit).
  const ref = await loadReferenceIn(ctx, trx);
  const derived = await rebuildDerived(ctx, trx, ref, time);
  if (!files && counts.get('attached_files')) derived.push({ code: 'files-not-copied', count: counts.get('attached_files')!, detail: 'their records were imported; run with --files <the source\'s MyFiles folder> to copy their bytes' });
  const unprocessed = counts.has('work_events') ? Number((await trx.selectFrom('work_events').select((eb) => eb.fn.countAll().as('n')).where('done', '=', dialect.boolean(false)).executeTakeFirst())?.n ?? 0) : 0;
  if (unprocessed) derived.push({ code: 'unprocessed-work-events', count: unprocessed, detail: 'the source\'s background queue had not run them: imported as they were (done = false); this service does not run them' });
  const ownRows = new Map([['api_keys', kept.length], ['api_access', own.rules.filter((rule) => kept.some((key) => key.from === Number(rule.idapikey))).length]]);
  const verification = await verifyImport(ctx, trx, ref, source, plan.tables, counts, ownRows, time);
  verification.clean = !verification.counts.mismatches.length && !verification.sums.mismatches.length && !verification.trialBalance.mismatches.length;
  if (!options.dryRun) await ctx.shared.bumpAll(trx);
  return {
    source: { engine: source.engine, url: source.shown },
    target: { engine: ctx.database.engine },
    dryRun: Boolean(options.dryRun),
    committed: false,
    seconds: 0,
    tables,
    phases,
    notImported: { tables: [], columns: [], absentTables: [] },
    warnings: findings.list(),
    findings: derived,
    keys: { imported: counts.get('api_keys') ?? 0, profile: 'facturascripts', kept },
    users: { imported: users, note: IMPORTED_USERS_NOTE },
    ...(files ? { files } : {}),
    verification,
  };
}

/** What the source holds that is not imported: tables without a model, columns without a place (with how many rows hold a value). */
async function notImportedOf(source: SourceDatabase, plan: ImportPlan): Promise<ImportReport['notImported']> {
  const tables = [];
  for (const table of plan.unknownTables) tables.push({ table: table.name, rows: await source.count(table.name) });
  const columns = [];
  for (const table of plan.tables) {
    for (const column of table.notImported) {
      const rows = await source.query(`SELECT COUNT(${source.quote(column)}) AS n FROM ${source.quote(table.source.name)}`);
      columns.push({ table: table.model.table, column, rows: Number(rows[0]?.n ?? 0) });
    }
  }
  return { tables, columns, absentTables: plan.absentTables };
}
