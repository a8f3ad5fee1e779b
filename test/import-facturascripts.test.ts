import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { runCommand } from '../src/cli/main.ts';
import { loadConfig } from '../src/config.ts';
import { createCore, type Core } from '../src/core.ts';
import { coreModules } from '../src/modules/index.ts';
import { importFacturaScripts, type ImportReport } from '../src/modules/migration/index.ts';
import { enabledEngines, scratchDatabase, type ScratchDatabase } from './helpers/engines.ts';
import { fillBooks, type BooksFacts } from './helpers/facturascripts-books.ts';
import { createSource, readOnlyUser, sourceChecksums, type SourceConnection, type SourceEngine } from './helpers/facturascripts-source.ts';
import { startTestApp } from './helpers/test-app.ts';
import type { Engine } from '../src/db/database.ts';

/**
 * `npm run cli -- import facturascripts --from <url>` (docs/migration.md): an installation of the
 * established system, built from its own table definitions on MariaDB and on PostgreSQL and
 * filled as it writes its books (helpers/facturascripts-books.ts), imported into a new
 * installation on every engine; then the service works on from where the source stopped.
 */

const NOW = Date.parse('2026-12-31T10:00:00Z');
const clock = { now: () => NOW };
const log = { info() {}, warn() {}, error() {} };

/** A new installation on `engine`, as the command line opens it (its first start: default data), its files in a folder of its own. */
async function newInstallation(engine: Engine): Promise<{ scratch: ScratchDatabase; core: Core; dataDir: string }> {
  const scratch = await scratchDatabase(engine);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-target-'));
  const core = await createCore({ config: { ...loadConfig({}), databaseUrl: scratch.url, dataDir, logLevel: 'silent', stateRefreshMs: 0 }, modules: coreModules(), log, clock });
  return { scratch, core, dataDir };
}

/** The source's `MyFiles/` folder: every file its records name but the last one. */
function sourceFiles(facts: BooksFacts): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'import-myfiles-'));
  for (const file of facts.files.slice(0, -1)) {
    const target = path.join(folder, file.path.replace(/^MyFiles\//, ''));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.content);
  }
  return folder;
}

/** The command as an operator runs it, its report read as JSON. */
async function importCommand(core: Core, from: string, ...flags: string[]): Promise<{ code: number; report: ImportReport & { refused?: string } }> {
  const printed: string[] = [];
  const progress: string[] = [];
  const code = await runCommand(core, ['import', 'facturascripts', '--from', from, '--json', ...flags], (line) => printed.push(line), { tty: false, write: (text) => progress.push(text) });
  const report = JSON.parse(printed.join('\n'));
  if (!report.refused) {
    // One JSON line per table on a pipe: rows and rate.
    const lines = progress.join('').trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((line) => line.table), report.tables.map((table: { table: string }) => table.table));
    for (const line of lines) assert.ok(typeof line.rows === 'number' && typeof line.rowsPerSecond === 'number');
  }
  return { code, report };
}

const count = async (core: Core, table: string) => Number((await core.ctx.database.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())!.n);

const sourceEngines = enabledEngines().filter((engine): engine is SourceEngine => engine === 'mysql' || engine === 'postgres');

// The established system runs on MariaDB/MySQL or PostgreSQL only: without either there is no source to import (CI has both).
if (!sourceEngines.length) describe('import of a FacturaScripts installation', { skip: 'needs a source engine: set TEST_MYSQL_URL or TEST_POSTGRES_URL (docs/development.md)' }, () => {});

for (const sourceEngine of sourceEngines) {
  describe(`import of a FacturaScripts installation on ${sourceEngine}`, () => {
    let source: { connection: SourceConnection; scratch: ScratchDatabase };
    let facts: BooksFacts;
    let checksums: Record<string, string>;
    let reader: Awaited<ReturnType<typeof readOnlyUser>>;
    before(async () => {
      source = await createSource(sourceEngine);
      facts = await fillBooks(source.connection);
      checksums = await sourceChecksums(source.connection);
      // The imports below read through a user that may only SELECT.
      reader = await readOnlyUser(source.connection);
    });
    after(async () => {
      // The source as it was: only read, whatever was imported from it.
      assert.deepEqual(await sourceChecksums(source.connection), checksums, 'the source is unchanged');
      await source.connection.close();
      await source.scratch.drop();
      await reader.drop(sourceEngine === 'mysql' ? process.env.TEST_MYSQL_URL! : process.env.TEST_POSTGRES_URL!);
    });

    for (const engine of enabledEngines()) {
      it(`imports every table into ${engine}, verified, and the service works on from where the source stopped`, async () => {
        const { scratch, core, dataDir } = await newInstallation(engine);
        const myFiles = sourceFiles(facts);
        try {
          const ownKey = await core.ctx.store.create(core.ctx.registry.get('apikey')!, { description: 'operator', fullaccess: true });
          const { code, report } = await importCommand(core, reader.url, '--files', myFiles);
          assert.equal(code, 0, JSON.stringify(report.verification));
          assert.equal(report.committed, true);
          assert.equal(report.verification.clean, true);
          assert.equal(report.verification.counts.compared, 83, 'every table of the system');
          assert.deepEqual(report.verification.counts.mismatches, []);
          assert.ok(report.verification.sums.compared > 100);
          assert.equal(report.verification.trialBalance.compared, facts.rows.subcuentas);
          // The one document whose stored totals are a cent off what this service computes: listed, kept as stored.
          assert.equal(report.verification.calculator.count, 1);
          assert.deepEqual(report.verification.calculator.differences.map((d) => [d.codigo, d.field, d.stored, d.computed]), [[facts.centOff.codigo, 'totaliva', 21.01, 21], [facts.centOff.codigo, 'total', 121.01, 121]]);
          // Not imported, and said so: the plugin's table, the old column.
          assert.deepEqual(report.notImported.tables, [{ table: facts.pluginTable.name, rows: facts.pluginTable.rows }]);
          assert.deepEqual(report.notImported.columns, [{ table: 'clientes', column: facts.oldColumn.column, rows: 1 }]);
          // What real installations hold: found, and derived state rebuilt.
          const finding = (code: string) => report.findings.find((candidate) => candidate.code === code);
          assert.deepEqual(finding('stale-subaccount-balances')?.detail, [{ codejercicio: facts.stale.codejercicio, codsubcuenta: facts.stale.codsubcuenta, stored: { debe: facts.stale.debe, haber: facts.stale.haber - 100 }, lines: { debe: facts.stale.debe, haber: facts.stale.haber } }]);
          assert.equal(finding('unprocessed-work-events')?.count, facts.unprocessedEvents);
          assert.ok(finding('customer-risk-rebuilt')!.count > 0);
          assert.equal(finding('stock-totals-rebuilt')?.count, 2, 'the product and variant whose stock total the queue had not updated');
          assert.deepEqual(report.warnings.find((warning) => warning.code === 'refused-today:invalid-iban')?.examples, [{ table: 'cuentasbcocli', key: facts.badIban.codcuenta, column: 'iban', value: 'ES9121000418450200051333' }]);
          assert.deepEqual([report.keys.imported, report.keys.kept.map((key) => key.from)], [3, [Number(ownKey.record.id)]]);
          assert.equal(report.users.imported, 2);
          if (sourceEngine === 'mysql') {
            // An old MySQL zero timestamp in a column that must hold one: imported as the epoch, and said so.
            assert.deepEqual(report.warnings.find((warning) => warning.code === 'invalid-timestamp')?.examples, [{ table: 'logs', key: 4, column: 'time', value: '0000-00-00 00:00:00' }]);
          }
          // Files: copied from the source's folder into the store; the one the folder lacks listed.
          const lost = facts.files[facts.files.length - 1]!;
          assert.deepEqual(report.files, { copied: facts.files.length - 1, missing: [{ idfile: lost.idfile, path: lost.path }] });
          for (const table of ['facturascli', 'lineasfacturascli', 'asientos', 'partidas', 'recibospagoscli', 'pagoscli', 'clientes', 'secuencias_documentos']) assert.equal(await count(core, table), facts.rows[table], table);

          const db = core.ctx.database.kysely;
          // Tokens digested, never readable; users unable to sign in.
          const keys = await db.selectFrom('api_keys').select(['id', 'apikey', 'profile']).orderBy('id').execute();
          assert.deepEqual(keys.slice(0, 3).map((key) => [key.apikey, key.profile]), [1, 2, 3].map((id) => [createHash('sha256').update(facts.tokens[id]!).digest('hex'), 'facturascripts']));
          const users = await db.selectFrom('users').select(['password', 'logkey', 'two_factor_secret_key']).execute();
          assert.ok(users.every((user) => !String(user.password).startsWith('$2y$') && user.logkey === null && user.two_factor_secret_key === null));
          // Every imported invoice, sold or bought, has the tax rows the forms read.
          for (const [table, column] of [['facturascli', 'idfacturacli'], ['facturasprov', 'idfacturaprov']] as const) {
            const bare = await db.selectFrom(`${table} as f`).select('f.idfactura').where((eb) => eb.not(eb.exists(eb.selectFrom('facturas_impuestos as t').select('t.id').whereRef(`t.${column}`, '=', 'f.idfactura')))).execute();
            assert.deepEqual(bare, [], `${table} without tax rows`);
          }
          // The credit note without a status: imported as the source kept it (its `pagada` behind its paid receipt), not "repaired".
          const credit = await db.selectFrom('facturascli').select(['idestado', 'pagada', 'editable']).where('idfactura', '=', facts.creditNote.idfactura).executeTakeFirst();
          assert.deepEqual([credit?.idestado, Boolean(Number(credit?.pagada)), Boolean(Number(credit?.editable))], [null, false, true]);
          // Balances from the entry lines, not the stale stored one.
          const staleRow = await db.selectFrom('subcuentas').select(['debe', 'haber']).where('codsubcuenta', '=', facts.stale.codsubcuenta).where('codejercicio', '=', facts.stale.codejercicio).executeTakeFirst();
          assert.deepEqual([Number(staleRow!.debe), Number(staleRow!.haber)], [facts.stale.debe, facts.stale.haber]);
          await core.close();

          const app = await startTestApp(engine, { url: scratch.url, clock, config: { dataDir } });
          try {
            // The source's integrations: the same token, the established system's answers.
            const full = await app.call('GET', '/api/3/clientes?limit=3', undefined, facts.tokens[1]);
            assert.equal(full.status, 200, JSON.stringify(full.body));
            assert.ok(Array.isArray(full.body) && full.body.length === 3);
            assert.equal(full.body[0].fechaalta, '01-01-2021', 'dates as the established system writes them');
            assert.equal((await app.call('GET', '/api/3/clientes/1', undefined, facts.tokens[2])).status, 200, 'a key with rules: its rule on clientes');
            assert.equal((await app.call('GET', '/api/3/productos', undefined, facts.tokens[2])).status, 403, 'and nothing else');
            assert.ok([401, 403].includes((await app.call('GET', '/api/3/clientes', undefined, facts.tokens[3])).status), 'a disabled key stays disabled');
            // An attached file's bytes, through its signed link, as the source kept them.
            const attached = await app.call('GET', `/api/3/attachedfiles/${facts.files[0]!.idfile}`);
            assert.equal(attached.status, 200, JSON.stringify(attached.body));
            const bytes = await app.request({ method: 'GET', url: `/${attached.body.download}`, key: null });
            assert.deepEqual([bytes.statusCode, bytes.body], [200, facts.files[0]!.content]);
            // Numbering continues where the source's would: serie A 2026 fills its gap (dated as the invoice after it), 2025's counter lags its numbers.
            const line = [{ descripcion: 'Servicio', cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }];
            const gapFilled = await app.call('POST', '/api/3/crearFacturaCliente', { codcliente: '1', fecha: '2026-12-30', lineas: line });
            assert.equal(gapFilled.status, 200, JSON.stringify(gapFilled.body));
            assert.deepEqual([gapFilled.body.doc.numero, gapFilled.body.doc.codigo, gapFilled.body.doc.fecha], [String(facts.gap.numero), `F2026A${facts.gap.numero}`, facts.gap.fecha]);
            const after2025 = await app.call('POST', '/api/3/crearFacturaCliente', { codcliente: '1', fecha: '2025-12-31', lineas: line });
            assert.equal(after2025.status, 200, JSON.stringify(after2025.body));
            assert.deepEqual([after2025.body.doc.numero, after2025.body.doc.codigo], [String(facts.next2025), `F2025A${facts.next2025}`]);
            // Posted on the imported chart, the entry numbered after the source's.
            assert.ok(after2025.body.doc.idasiento, JSON.stringify(after2025.body));
            // A quarter the system itself settled is settled here too, and the next ones follow it.
            const again = await app.call('POST', '/api/3/liquidarIVA', { codejercicio: '2025', periodo: facts.settledQuarter });
            assert.deepEqual([again.status, again.body.fields?.periodo], [422, 'already-settled'], JSON.stringify(again.body));
            const skipping = await app.call('POST', '/api/3/liquidarIVA', { codejercicio: '2025', periodo: '3T' });
            assert.deepEqual([skipping.status, skipping.body.fields?.periodo], [422, 'previous-not-settled'], JSON.stringify(skipping.body));
            // The tax forms read the imported invoices' rows.
            const vat = await app.call('GET', '/api/3/modelo303?codejercicio=2025&periodo=4T');
            assert.equal(vat.status, 200, JSON.stringify(vat.body));
            // Box 07: the quarter's bases at 21 % as the source's lines have them, and the new invoice's 100.
            const [sold] = await source.connection.query(`SELECT SUM(l.pvptotal) AS base FROM lineasfacturascli l JOIN facturascli f ON f.idfactura = l.idfactura
              WHERE l.iva = 21 AND f.fecha >= '2025-10-01' AND f.fecha <= '2025-12-31'`);
            assert.ok(Number(sold!.base) > 0);
            assert.equal(vat.body.casillas['07'], Math.round((Number(sold!.base) + 100) * 100) / 100);
          } finally {
            await app.close();
          }
        } finally {
          await core.close().catch(() => {});
          await scratch.drop();
          fs.rmSync(dataDir, { recursive: true, force: true });
          fs.rmSync(myFiles, { recursive: true, force: true });
        }
      });
    }

    it('checks everything and writes nothing on a dry run; refuses an installation that is not new; a second run is refused and harmless', async () => {
      const { scratch, core, dataDir } = await newInstallation('sqlite');
      try {
        const before = await count(core, 'empresas');
        const dry = await importCommand(core, source.scratch.url, '--dry-run');
        assert.equal(dry.code, 0);
        assert.deepEqual([dry.report.dryRun, dry.report.committed, dry.report.verification.clean], [true, false, true]);
        assert.deepEqual([await count(core, 'clientes'), await count(core, 'facturascli'), await count(core, 'empresas')], [0, 0, before], 'nothing written');
        assert.equal(dry.report.tables.find((table) => table.table === 'facturascli')?.rows, facts.rows.facturascli, 'the same report');
        const first = await importCommand(core, source.scratch.url);
        assert.equal(first.code, 0);
        const again = await importCommand(core, source.scratch.url);
        assert.equal(again.code, 1);
        assert.match(again.report.refused!, /not new: it holds .*clientes \(12\)/);
        assert.equal(await count(core, 'facturascli'), facts.rows.facturascli, 'nothing imported twice');
      } finally {
        await core.close();
        await scratch.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });

    for (const engine of enabledEngines()) {
      it(`leaves an installation on ${engine} as it was when the import fails half-way`, async () => {
        const { scratch, core, dataDir } = await newInstallation(engine);
        try {
          const companies = await core.ctx.database.kysely.selectFrom('empresas').selectAll().execute();
          // Interrupted once the invoices' lines are being written: everything before them was copied.
          const failing = importFacturaScripts(core.ctx, {
            from: source.scratch.url,
            progress: (state) => {
              if (state.table === 'lineasfacturascli') throw new Error('interrupted');
            },
          });
          await assert.rejects(failing, /interrupted/);
          assert.deepEqual(await core.ctx.database.kysely.selectFrom('empresas').selectAll().execute(), companies, 'the default data as it was');
          for (const table of ['clientes', 'facturascli', 'asientos', 'facturas_impuestos']) assert.equal(await count(core, table), 0, table);
          // Still a new installation: the import runs again, whole.
          const { code, report } = await importCommand(core, source.scratch.url);
          assert.equal(code, 0, JSON.stringify(report.verification));
          assert.equal(await count(core, 'lineasfacturascli'), facts.rows.lineasfacturascli);
        } finally {
          await core.close();
          await scratch.drop();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      });
    }

    it('keeps nothing when the imported books differ from the source, and says where', async () => {
      const { scratch, core, dataDir } = await newInstallation('sqlite');
      try {
        // A target that loses a row it was given (here a trigger; in life a full disk, a rule of the database): the counts and sums disagree.
        await sql`CREATE TRIGGER lose_a_log AFTER INSERT ON logs WHEN NEW.id = 2 BEGIN DELETE FROM logs WHERE id = NEW.id; END`.execute(core.ctx.database.kysely);
        const companies = await core.ctx.database.kysely.selectFrom('empresas').selectAll().execute();
        const { code, report } = await importCommand(core, source.scratch.url);
        assert.equal(code, 1);
        assert.deepEqual([report.committed, report.verification.clean], [false, false]);
        assert.deepEqual(report.verification.counts.mismatches, [{ table: 'logs', source: facts.rows.logs, target: facts.rows.logs - 1 }]);
        assert.deepEqual(report.verification.trialBalance.mismatches, []);
        assert.deepEqual(await core.ctx.database.kysely.selectFrom('empresas').selectAll().execute(), companies, 'the default data as it was');
        for (const table of ['clientes', 'facturascli', 'logs']) assert.equal(await count(core, table), 0, table);
      } finally {
        await core.close();
        await scratch.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
