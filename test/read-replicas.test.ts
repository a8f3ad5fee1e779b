import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { isPlainRead } from '../src/db/read-replicas.ts';
import { loadConfig } from '../src/config.ts';
import { postgresBinDir, startReplicaPair, type ReplicaPair } from '../scripts/pg-replica-pair.ts';
import { enabledEngines, scratchDatabase, type ScratchDatabase } from './helpers/engines.ts';
import { eventually } from './helpers/eventually.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * DATABASE_READ_URL: reads of GET requests go to a replica, writes and transactions to the
 * primary, a key reads its own writes, a replica that is down or behind is skipped.
 *
 * On every server engine the "replica" is a second database with the same schema and none of the
 * primary's later writes: a record written through the API is found through the primary only,
 * which tells where each read went. On PostgreSQL a real primary and streaming replica pair
 * (scripts/pg-replica-pair.ts) then shows replication, a replica stopped and a replica behind.
 */
async function createKey(t: TestApp, description: string): Promise<string> {
  const made = await t.call('POST', '/api/3/apikey', { description, fullaccess: true });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body.apikey;
}

describe('which statements a replica may answer', () => {
  const compiled = (text: string, kind: 'SelectQueryNode' | 'RawNode' = 'RawNode') => ({ ...CompiledQuery.raw(text), query: { kind } }) as unknown as CompiledQuery;
  it('takes plain SELECTs only', () => {
    assert.equal(isPlainRead(compiled('select * from "clientes" where "codcliente" = $1', 'SelectQueryNode')), true);
    assert.equal(isPlainRead(compiled('SELECT 1')), true);
    for (const text of ['select * from series where codserie = $1 for update', 'SELECT * FROM t FOR SHARE', 'select * from t lock in share mode', "SELECT setval(pg_get_serial_sequence('t', 'id'), 5)", 'SELECT pg_advisory_lock(1)', 'SELECT GET_LOCK(\'x\', 1)']) {
      assert.equal(isPlainRead(compiled(text, text.startsWith('select *') ? 'SelectQueryNode' : 'RawNode')), false, text);
    }
    assert.equal(isPlainRead(compiled('update t set x = 1')), false);
    assert.equal(isPlainRead(compiled('with x as (delete from t returning *) select * from x')), false);
  });

  it('refuses replicas of another engine, or of SQLite', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://h/db', DATABASE_READ_URL: 'mysql://h/db' }), /DATABASE_READ_URL/);
    assert.throws(() => loadConfig({ DATABASE_URL: 'sqlite:./x.sqlite', DATABASE_READ_URL: 'sqlite:./y.sqlite' }), /DATABASE_READ_URL/);
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://h/a', DATABASE_READ_URL: 'postgres://r1/a, postgres://r2/a' }).databaseReadUrls, ['postgres://r1/a', 'postgres://r2/a']);
    // The message names the variable and never the password.
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://h/a', DATABASE_READ_URL: 'pgsql://reader:s3cret@r1/a' }), (error: Error) => /^DATABASE_READ_URL/.test(error.message) && !error.message.includes('s3cret'));
  });
});

for (const engine of enabledEngines().filter((candidate) => candidate !== 'sqlite')) {
  describe(`read replicas [${engine}]`, () => {
    let replica: ScratchDatabase;
    let t: TestApp & { scratch?: ScratchDatabase };
    let writer: string;
    let reader: string;
    before(async () => {
      replica = await scratchDatabase(engine);
      // The stand-in replica: the same schema and default data, made by an instance of its own.
      const made = await startTestApp(engine, { url: replica.url });
      await made.app.close();
      t = await startTestApp(engine, { config: { databaseReadUrls: [replica.url], readYourWritesMs: 3000, readReplicaCheckMs: 50 } });
      writer = await createKey(t, 'writer');
      reader = await createKey(t, 'reader');
    });
    after(async () => {
      await t?.close();
      await replica?.drop();
    });

    it('sends GET reads to the replica, writes and their reads to the primary, and a key reads its own writes', async () => {
      // A write whose transaction reads (the customer's code counter, its uniqueness) succeeds on the primary.
      const created = await t.call('POST', '/api/3/cliente', { codcliente: 'REPL1', nombre: 'Only on the primary' }, writer);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      // The writer reads its write at once, from the primary; another key reads the replica, which lacks it.
      // A total the replica counted after the write is not the writer's total.
      assert.equal((await t.call('GET', '/api/3/cliente?filter[codcliente]=REPL1', undefined, reader)).headers['x-total-count'], '0');
      assert.equal((await t.call('GET', '/api/3/cliente?filter[codcliente]=REPL1', undefined, writer)).headers['x-total-count'], '1');
      assert.equal((await t.call('GET', '/api/3/cliente/REPL1', undefined, writer)).status, 200);
      assert.equal((await t.call('GET', '/api/3/cliente/REPL1', undefined, reader)).status, 404);
      const list = await t.call('GET', '/api/3/cliente?filter[codcliente]=REPL1', undefined, reader);
      assert.deepEqual([list.status, list.body, list.headers['x-total-count']], [200, [], '0']);
      // Once the window has passed, the writer's reads go to the replica too.
      await new Promise((resolve) => setTimeout(resolve, 3100));
      assert.equal((await t.call('GET', '/api/3/cliente/REPL1', undefined, writer)).status, 404);
      // An invoice for the customer only the primary has: every read of the operation stays on the primary.
      const invoice = await t.call('POST', '/api/3/crearFacturaCliente', { codcliente: 'REPL1', lineas: [{ descripcion: 'x', cantidad: 1, pvpunitario: 10 }] }, reader);
      assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
      const status = t.app.ctx.database.replicas!.status();
      assert.equal(status.length, 1);
      assert.ok(status[0]!.usable && status[0]!.statements > 0, JSON.stringify(status));
      assert.ok(!/(root|postgres)@/.test(JSON.stringify(status)), `no credentials in the status: ${JSON.stringify(status)}`);
      const ready = await t.request({ method: 'GET', url: '/ready', key: null });
      assert.deepEqual(ready.json(), { status: 'ready', replicas: { usable: 1, configured: 1 } });
    });

    it('skips a replica that is down: reads go to the primary, without errors', async () => {
      const broken = await startTestApp(engine, {
        url: t.scratch!.url,
        config: { databaseReadUrls: [engine === 'postgres' ? 'postgres://postgres@127.0.0.1:1/none' : 'mysql://root@127.0.0.1:1/none'], readReplicaCheckMs: 50 },
      });
      try {
        assert.equal((await broken.call('GET', '/api/3/cliente/REPL1')).status, 200);
        assert.deepEqual(broken.app.ctx.database.replicas!.status().map((replica) => [replica.up, replica.usable]), [[false, false]]);
        assert.deepEqual((await broken.request({ method: 'GET', url: '/ready', key: null })).json(), { status: 'ready', replicas: { usable: 0, configured: 1 } });
      } finally {
        await broken.app.close();
      }
    });
  });
}

const pgTools = Boolean(process.env.TEST_POSTGRES_URL && postgresBinDir());
describe('a PostgreSQL primary and streaming replica', { skip: pgTools ? false : 'needs TEST_POSTGRES_URL and the PostgreSQL server tools (initdb, pg_ctl, pg_basebackup)' }, () => {
  let pair: ReplicaPair;
  let t: TestApp;
  let reader: string;
  before(async () => {
    pair = await startReplicaPair();
    t = await startTestApp('postgres', { url: pair.primaryUrl, config: { databaseReadUrls: [pair.replicaUrl], readYourWritesMs: 0, readReplicaMaxLagMs: 300, readReplicaCheckMs: 50 } });
    reader = await createKey(t, 'reader');
  });
  after(async () => {
    await t?.app.close();
    pair?.stop();
  });

  it('reads what the primary wrote once it has replicated, from the replica', async () => {
    assert.equal((await t.call('POST', '/api/3/cliente', { codcliente: 'STREAM1', nombre: 'Replicated' })).status, 201);
    // Until the replica has replayed the write, and while a busy machine holds its measured lag past
    // the bound, reads go to the primary: wait for one that the replica itself answers.
    await eventually(async () => {
      const before = t.app.ctx.database.replicas!.status()[0]!.statements;
      assert.equal((await t.call('GET', '/api/3/cliente/STREAM1', undefined, reader)).status, 200);
      assert.ok(t.app.ctx.database.replicas!.status()[0]!.statements > before, 'answered by the replica');
    }, 10_000);
  });

  it('skips a replica that falls behind, and uses it again once it catches up', async () => {
    const replay = (action: 'pause' | 'resume') => pair.run('psql', ['-h', '127.0.0.1', '-p', new URL(pair.replicaUrl).port, '-U', 'postgres', '-Atc', `SELECT pg_wal_replay_${action}()`]);
    replay('pause');
    try {
      assert.equal((await t.call('POST', '/api/3/cliente', { codcliente: 'STREAM2', nombre: 'Written while the replica waits' })).status, 201);
      // Past the lag bound the replica is skipped: the new customer is read from the primary.
      await eventually(async () => assert.equal(t.app.ctx.database.replicas!.status()[0]!.usable, false), 5000);
      assert.equal((await t.call('GET', '/api/3/cliente/STREAM2', undefined, reader)).status, 200);
    } finally {
      replay('resume');
    }
    await eventually(async () => assert.equal(t.app.ctx.database.replicas!.status()[0]!.usable, true), 5000);
  });

  it('goes on from the primary while the replica is stopped, and back to it when it returns', async () => {
    // Checks far apart: the reads below meet the stopped replica before any check does.
    t.app.ctx.database.replicas!.stopChecks();
    for (let i = 0; i < 3; i++) assert.equal((await t.call('GET', '/api/3/cliente/STREAM1', undefined, reader)).status, 200);
    pair.stopReplica();
    try {
      // Its pooled connections break during a statement, new ones are refused: every read still answers.
      for (let i = 0; i < 5; i++) assert.equal((await t.call('GET', '/api/3/cliente/STREAM1', undefined, reader)).status, 200);
      assert.equal(t.app.ctx.database.replicas!.status()[0]!.up, false);
      t.app.ctx.database.replicas!.startChecks();
    } finally {
      pair.startReplica();
    }
    await eventually(async () => assert.equal(t.app.ctx.database.replicas!.status()[0]!.usable, true), 10_000);
    const before = t.app.ctx.database.replicas!.status()[0]!.statements;
    assert.equal((await t.call('GET', '/api/3/cliente/STREAM1', undefined, reader)).status, 200);
    assert.ok(t.app.ctx.database.replicas!.status()[0]!.statements > before);
  });
});
