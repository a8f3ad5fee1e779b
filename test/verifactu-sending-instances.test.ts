import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { createDatabase, type Engine } from '../src/db/database.ts';
import { makeCertificates, startStandIn, type StandIn } from './helpers/aeat-stand-in.ts';
import { enabledEngines, scratchDatabase } from './helpers/engines.ts';
import { freePort } from './helpers/free-port.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { recordsOf, switchOn } from './helpers/verifactu.ts';

/**
 * VERI*FACTU sending is exactly-once and in order per company, whatever runs it:
 * - two instances on one database, both running the sending job at once over several rounds, send
 *   every record to the AEAT (a local stand-in) exactly once, in generation order, one message of a
 *   taxpayer in flight at a time, and honour each answer's TiempoEsperaEnvio between messages;
 * - a service killed (SIGKILL) after the AEAT answered but before the answer was stored loses
 *   nothing and duplicates nothing: started again, it takes over once the dead sender's claim has
 *   expired, resends the same records in the same order, and takes the AEAT's "duplicate" (3000) of
 *   a record its unanswered message carried as that message's arrival (estado `correcto`).
 */
const SECOND = 1000;
const root = path.resolve(import.meta.dirname, '..');
const certificates = makeCertificates();
after(() => fs.rmSync(certificates.dir, { recursive: true, force: true }));

const verifactuConfig = (standIn: StandIn, timeoutMs: number) => ({
  endpoint: standIn.url, caFile: certificates.caFile, certFile: certificates.clientP12File, certPassword: certificates.password, pollMs: 3_600_000, timeoutMs,
});

async function setUpCompany(t: TestApp): Promise<void> {
  const customer = await t.call('POST', '/api/3/cliente', { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' });
  assert.equal(customer.status, 201, JSON.stringify(customer.body));
  await switchOn(t);
}

async function invoice(t: TestApp, line: string): Promise<void> {
  const answer = await t.call('POST', '/api/3/crearFacturaCliente', { codcliente: 'ANA', lineas: [{ descripcion: line, cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }] });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

/** The company's records and messages as stored, read straight from the database. */
async function stored(url: string) {
  const database = createDatabase(url);
  try {
    const records = await database.kysely.selectFrom('registros_verifactu').select(['id', 'numserie', 'estado', 'codigoerror', 'descripcionerror'])
      .where('idempresa', '=', 1).orderBy('id').execute();
    const messages = await database.kysely.selectFrom('verifactu_envios').select(['id', 'estado', 'registros']).where('idempresa', '=', 1).orderBy('id').execute();
    return { records, messages };
  } finally {
    await database.close();
  }
}

/** The service process (src/main.ts) on `url`, sending to the stand-in; its output is kept for failure messages. */
function startService(url: string, dataDir: string, standIn: StandIn, extraEnv: Record<string, string> = {}): { child: ChildProcess; output: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  let output = '';
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    env: {
      ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, API_KEY: 'instances-test-global-key-0123456789', HOST: '127.0.0.1', LOG_LEVEL: 'warn',
      VERIFACTU_ENDPOINT: standIn.url, VERIFACTU_CA_FILE: certificates.caFile, VERIFACTU_CERT_FILE: certificates.clientP12File, VERIFACTU_CERT_PASSWORD: certificates.password,
      VERIFACTU_POLL_MS: '100', VERIFACTU_TIMEOUT_MS: '1000', ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

async function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what())), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function twoInstances(engine: Engine): void {
  it('two instances never send one company\'s records twice or out of order', async () => {
    const standIn = await startStandIn(certificates);
    let now = Date.parse('2027-01-15T09:30:00Z');
    const options = { clock: { now: () => now }, config: { verifactu: verifactuConfig(standIn, 5000) } };
    // Each message is held a while at the stand-in, so that the other instance's run meets it in flight.
    const sentAt: number[] = [];
    standIn.onMessage = async () => {
      sentAt.push(now);
      await sleep(30 + Math.random() * 20);
    };
    const WAIT_S = 1;
    standIn.wait = WAIT_S;
    const first = await startTestApp(engine, options);
    let second: TestApp | undefined;
    try {
      await setUpCompany(first);
      second = await startTestApp(engine, { ...options, url: first.scratch!.url });
      const instances = [first, second];
      const sendOnBoth = () => Promise.all(instances.map((instance) => instance.app.runJob('verifactu-send')));
      let made = 0;
      const invoices = (count: number) => Promise.all(Array.from({ length: count }, () => {
        const n = made++;
        return invoice(instances[n % 2]!, `Línea ${n}`);
      }));

      await invoices(4);
      now += 60 * SECOND;
      for (let round = 0; round < 6; round++) {
        // Invoices made on both instances while both send: records generated mid-message wait for the next one.
        await Promise.all([invoices(3), sendOnBoth(), sendOnBoth()]);
        for (let pass = 0; pass < 2; pass++) {
          now += WAIT_S * SECOND;
          await Promise.all([invoices(1), sendOnBoth(), sendOnBoth()]);
        }
        // A message leaves; records made right after it wait for its TiempoEsperaEnvio on both instances.
        await invoices(1);
        now += WAIT_S * SECOND;
        const before = standIn.messages.length;
        await sendOnBoth();
        assert.equal(standIn.messages.length, before + 1, `round ${round}: the records waiting go`);
        await invoices(2);
        await Promise.all([sendOnBoth(), sendOnBoth()]);
        assert.equal(standIn.messages.length, before + 1, `round ${round}: nothing leaves before the answer's TiempoEsperaEnvio`);
      }
      for (let pass = 0; pass < 20 && (await recordsOf(first)).some((record) => record.estado === 'pendiente'); pass++) {
        now += WAIT_S * SECOND;
        await sendOnBoth();
      }

      const records = await recordsOf(first);
      assert.equal(records.length, made, 'one record per invoice');
      const received = standIn.messages.flatMap((message) => message.records);
      assert.deepEqual(received.filter((record) => record.code === 3000).map((record) => record.numserie), [], 'no record reached the AEAT twice');
      assert.deepEqual(received.map((record) => record.numserie), records.map((record) => record.numserie), 'every record sent once, in generation order');
      assert.equal(standIn.held.size, records.length);
      assert.equal(standIn.maxInFlight, 1, 'one message of the taxpayer in flight at a time');
      assert.deepEqual(standIn.invalid, []);
      assert.ok(standIn.messages.length >= 6, `only ${standIn.messages.length} messages: at least one a round`);
      for (const record of records) assert.equal(record.estado, 'correcto', `record ${record.id} (${record.numserie})`);
      for (let i = 1; i < sentAt.length; i++) {
        assert.ok(sentAt[i]! >= sentAt[i - 1]! + WAIT_S * SECOND, `message ${i + 1} left ${sentAt[i]! - sentAt[i - 1]!} ms after the one before, within its TiempoEsperaEnvio`);
      }
      const messages = (await stored(first.scratch!.url)).messages;
      assert.equal(messages.length, standIn.messages.length, 'one stored message per message sent');
      assert.deepEqual(messages.filter((message) => message.estado !== 'respondido'), []);
    } finally {
      // The second first: closing the first drops the database.
      await second?.close();
      await first.close();
      await standIn.close();
    }
  });
}

function killedBetweenSendingAndStoring(engine: Engine): void {
  it('a kill -9 between sending and storing the answer loses and duplicates nothing', async () => {
    const standIn = await startStandIn(certificates);
    standIn.wait = 0;
    const scratch = await scratchDatabase(engine);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-verifactu-kill-'));
    let running: ReturnType<typeof startService> | undefined;
    try {
      // Made five minutes ago on the service's clock: the 60 s before the first message are over for a process on the real clock.
      const then = Date.now() - 5 * 60 * SECOND;
      const maker = await startTestApp(engine, { url: scratch.url, clock: { now: () => then }, config: { verifactu: verifactuConfig(standIn, 5000) } });
      try {
        await setUpCompany(maker);
        for (let i = 0; i < 5; i++) await invoice(maker, `Línea ${i}`);
      } finally {
        await maker.close();
      }
      const before = await stored(scratch.url);
      assert.equal(before.records.length, 5);
      const order = before.records.map((record) => record.numserie);

      running = startService(scratch.url, dataDir, standIn, { INVOICING_TEST_KILL_AFTER_SEND: '1', PORT: String(await freePort()) });
      const killed = await within(running.exited, 30_000, () => `the service did not kill itself after sending: ${running!.output()}`);
      assert.equal(killed.signal, 'SIGKILL', running.output());
      assert.equal(standIn.messages.length, 1, 'one message left before the kill');
      assert.deepEqual(standIn.messages[0]!.records.map((record) => [record.numserie, record.outcome]), order.map((numserie) => [numserie, 'Correcto']));
      assert.equal(standIn.held.size, 5, 'the AEAT holds the records');
      const afterKill = await stored(scratch.url);
      assert.deepEqual(afterKill.records.map((record) => record.estado), order.map(() => 'pendiente'), 'the answer was never stored');
      assert.deepEqual(afterKill.messages.map((message) => message.estado), ['enviando'], 'the dead sender left its message\'s trace');

      running = startService(scratch.url, dataDir, standIn, { PORT: String(await freePort()) });
      const started = Date.now();
      let final = afterKill;
      while (final.records.some((record) => record.estado === 'pendiente')) {
        assert.equal(running.child.exitCode, null, `the service exited: ${running.output()}`);
        assert.ok(Date.now() - started < 30_000, `records still pending after 30 s: ${JSON.stringify(final.records)} ${running.output()}`);
        await sleep(100);
        final = await stored(scratch.url);
      }
      await sleep(300); // any further (wrong) message would have left by now (VERIFACTU_POLL_MS=100)

      assert.equal(standIn.messages.length, 2, 'the records were sent once more, in one message');
      const resent = standIn.messages[1]!;
      assert.deepEqual(resent.records.map((record) => [record.numserie, record.outcome, record.code]), order.map((numserie) => [numserie, 'Incorrecto', 3000]),
        'the AEAT answered each resent record as a duplicate');
      assert.equal(standIn.held.size, 5, 'the AEAT holds no record twice');
      assert.deepEqual(standIn.invalid, []);
      const firstPetition = standIn.held.get(`${resent.records[0]!.nif}|${resent.records[0]!.numserie}|${resent.records[0]!.fecha}`)!.idpeticion;
      for (const record of final.records) {
        assert.equal(record.estado, 'correcto', `record ${record.id} (${record.numserie})`);
        assert.equal(record.codigoerror, null, `record ${record.id}: the duplicate's own code, none here`);
        assert.match(String(record.descripcionerror), new RegExp(`petición ${firstPetition}\\b`), `record ${record.id} says where it arrived`);
      }
      assert.deepEqual(final.records.map((record) => record.numserie), order, 'no record missing or added');
      assert.deepEqual(final.messages.map((message) => message.estado), ['enviando', 'respondido']);
    } finally {
      if (running && running.child.exitCode === null && running.child.signalCode === null) {
        running.child.kill('SIGKILL');
        await running.exited;
      }
      await scratch.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await standIn.close();
    }
  });
}

for (const engine of enabledEngines()) {
  describe(`VERI*FACTU sending across instances and crashes [${engine}]`, () => {
    twoInstances(engine);
    killedBetweenSendingAndStoring(engine);
  });
}
