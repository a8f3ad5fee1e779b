import assert from 'node:assert/strict';
import { it } from 'node:test';
import { afterCommit, inTransaction, NestedConnectionError } from '../src/db/transaction.ts';
import pg from 'pg';
import { sql } from 'kysely';
import mysql from 'mysql2/promise';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/** Rejects when `work` has not settled within `ms`: a hang fails the test instead of stalling the run. */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms: the service hangs`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

forEachEngine('reliability: state changes during document writes', (t) => {
  it('keeps serving when settings, keys and rules change while documents are written (more writers than connections)', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'REL', nombre: 'Reliable' });
    const invoice = () => t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'REL', lineas: [{ descripcion: 'x', cantidad: 2, pvpunitario: 10 }] });
    const answers = await within(30_000, Promise.all([
      ...Array.from({ length: 15 }, invoice),
      t().call('PUT', '/api/3/settings/default', { properties: { decimals: 2 } }),
      t().call('POST', '/api/3/apikey', { description: 'during writes' }),
      t().app.runJob('shared-state'),
      ...Array.from({ length: 15 }, invoice),
      t().call('PUT', '/api/3/settings/default', { properties: { codpago: 'CONT' } }),
      ...Array.from({ length: 5 }, () => t().call('GET', '/api/3/')),
    ]));
    assert.deepEqual([...new Set(answers.filter(Boolean).map((a) => (a as { status: number }).status))].sort(), [200, 201]);
    // Still answering afterwards, and numbering stayed gap-free.
    const invoices = (await within(5_000, t().call('GET', '/api/3/facturacliente?filter[codcliente]=REL&sort[numero]=ASC&limit=100'))).body;
    assert.equal(invoices.length, 30);
    const numbers = invoices.map((i: { numero: string }) => Number(i.numero)).sort((a: number, b: number) => a - b);
    assert.deepEqual(numbers, Array.from({ length: 30 }, (_, i) => numbers[0] + i));
  });

  it('fails fast, instead of hanging, when code asks for a second connection inside a transaction', async () => {
    const { database, store, registry } = t().app.ctx;
    await assert.rejects(
      within(5_000, inTransaction(database, async () => store.get(registry.get('cliente')!, 'REL'))),
      NestedConnectionError,
    );
    await assert.rejects(within(5_000, inTransaction(database, () => t().app.ctx.settings())), NestedConnectionError);
    // The connection went back: the next statement runs.
    assert.equal((await t().call('GET', '/api/3/cliente/REL')).status, 200);
  });

  it('runs after-commit work once, after the commit, and never for a rollback', async () => {
    const { database } = t().app.ctx;
    const seen: string[] = [];
    await inTransaction(database, async (trx) => {
      afterCommit(trx, () => seen.push('committed'));
      assert.deepEqual(seen, []);
    });
    await assert.rejects(inTransaction(database, async (trx) => {
      afterCommit(trx, () => seen.push('rolled back'));
      throw new Error('abort');
    }));
    assert.deepEqual(seen, ['committed']);
  });

  it('runs the after-commit work of a retried transaction once: the committed attempt\'s', async () => {
    const { database } = t().app.ctx;
    const seen: number[] = [];
    let attempt = 0;
    const result = await inTransaction(database, async (trx) => {
      attempt += 1;
      afterCommit(trx, () => seen.push(attempt));
      // A serialisation failure on the first two attempts: the transaction is run again.
      if (attempt < 3) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      return 'done';
    });
    assert.equal(result, 'done');
    assert.deepEqual(seen, [3]);
  });

  it('emits no model or document event for a creation that rolled back', async () => {
    const seen: string[] = [];
    const { events } = t().app.ctx;
    const offs = [
      events.on('model.save', (e) => void seen.push(`save:${e.model}`)),
      events.on('document.created', (e) => void seen.push(`created:${e.type}`)),
    ];
    try {
      await t().call('POST', '/api/3/producto', { referencia: 'NOSTOCK1', precio: 5, ventasinstock: false });
      seen.length = 0;
      // The second line has no stock and the product refuses to sell without: the whole note rolls back.
      const failed = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'REL', lineas: [{ descripcion: 'free text' }, { referencia: 'NOSTOCK1', cantidad: 3 }] });
      assert.equal(failed.status, 422);
      assert.deepEqual(seen, []);
    } finally {
      for (const off of offs) off();
    }
  });

  it('runs event listeners outside the transaction that announced them', async () => {
    const { events, database, store, registry } = t().app.ctx;
    let later: Promise<unknown> | undefined;
    const off = events.on('model.load', (event) => {
      if (event.model !== 'cliente' || later) return;
      // Work a listener starts may outlive the transaction: it must be free to use the database.
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(() => store.get(registry.get('cliente')!, 'REL'));
    });
    try {
      await inTransaction(database, (trx) => store.get(registry.get('cliente')!, 'REL', trx));
    } finally {
      off();
    }
    assert.equal(((await later) as { codcliente: string }).codcliente, 'REL');
  });

  it('reads a setting spelled as the forms spell booleans, and keeps the API on for "yes"', async () => {
    const answer = await t().call('PUT', '/api/3/settings/default', { properties: { enable_api: 'yes', decimals: '2' } });
    assert.equal(answer.status, 200);
    assert.deepEqual([answer.body.properties.enable_api, answer.body.properties.decimals], [true, 2]);
    assert.equal((await t().call('GET', '/api/3/')).status, 200);
  });

  it('moves the shared state version in the transaction of a key change', async () => {
    const db = t().app.ctx.database.kysely;
    const version = async () => Number((await db.selectFrom('api_state').select('version').where('name', '=', 'access').executeTakeFirstOrThrow()).version);
    const before = await version();
    const created = await t().call('POST', '/api/3/apikey', { description: 'bump' });
    assert.equal(created.status, 201);
    assert.equal(await version(), before + 1);
    const refused = await t().call('POST', '/api/3/apiaccess', { idapikey: 999999, resource: 'cliente' });
    assert.equal(refused.status, 422);
    assert.equal(await version(), before + 1, 'a rolled back change does not move the version');
  });
}, { config: { stateRefreshMs: 60_000 } });

/** Ends every session the app holds on its database, as a server restart or a network cut would. */
async function killSessions(t: TestApp): Promise<number> {
  const url = new URL(t.app.ctx.config.databaseUrl);
  const name = url.pathname.slice(1);
  if (t.engine === 'postgres') {
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      return rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }
  const admin = await mysql.createConnection(process.env.TEST_MYSQL_URL!);
  try {
    const [rows] = await admin.query('SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()', [name]);
    for (const { id } of rows as Array<{ id: number }>) await admin.query(`KILL ${Number(id)}`).catch(() => {});
    return (rows as unknown[]).length;
  } finally {
    await admin.end();
  }
}

// SQLite is embedded: there is no connection to lose.
forEachEngine('reliability: lost database connections', (t) => {
  it('drops dead idle connections and keeps serving', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'CONN', nombre: 'Connection' });
    // Fill the pool with idle connections, then end them all from the server side.
    await Promise.all(Array.from({ length: 10 }, () => t().call('GET', '/api/3/cliente/CONN')));
    assert.ok((await killSessions(t())) > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 12; i++) assert.equal((await t().call('GET', '/api/3/cliente/CONN')).status, 200);
  });

  it('answers 503, never 500, for requests whose connection dies under them, and recovers', async () => {
    const invoice = () => t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'CONN', lineas: [{ descripcion: 'x', pvpunitario: 3 }] });
    const load = Array.from({ length: 40 }, (_, i) => (i % 2 ? invoice() : t().call('GET', '/api/3/cliente?limit=5')));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await killSessions(t());
    const statuses = (await within(30_000, Promise.all(load))).map((answer) => answer.status);
    assert.ok(statuses.every((status) => status === 200 || status === 503), statuses.join());
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await invoice()).status, 200);
    // Whatever was acknowledged is whole, and the numbers stay gap-free.
    const numbers = (await t().call('GET', '/api/3/facturacliente?filter[codcliente]=CONN&limit=100')).body.map((i: { numero: string }) => Number(i.numero)).sort((a: number, b: number) => a - b);
    assert.deepEqual(numbers, Array.from({ length: numbers.length }, (_, i) => numbers[0] + i));
  });
}, { engines: ['postgres', 'mysql'] });

forEachEngine('reliability: concurrent settings updates', (t) => {
  it('keeps every key of concurrent updates to one settings group (a locked read-modify-write)', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `custom_${i}`);
    const answers = await Promise.all(keys.map((key, i) => t().call('PUT', '/api/3/settings/default', { properties: { [key]: i } })));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
    const stored = (await t().call('GET', '/api/3/settings/default')).body.properties;
    for (const [i, key] of keys.entries()) assert.equal(stored[key], i, key);
    assert.equal(stored.decimals, 2, 'the defaults stay');
  });
});

forEachEngine('reliability: isolation level', (t) => {
  it('runs every transaction at READ COMMITTED, whatever the server default', async () => {
    const { database } = t().app.ctx;
    const read = async () => {
      const query = t().engine === 'postgres' ? sql<{ level: string }>`SHOW transaction_isolation` : sql<{ level: string }>`SELECT @@SESSION.tx_isolation AS level`;
      return inTransaction(database, async (trx) => String((await query.execute(trx)).rows[0]!.level ?? Object.values((await query.execute(trx)).rows[0]!)[0]));
    };
    const levels = await Promise.all(Array.from({ length: 12 }, read));
    for (const level of levels) assert.match(level.toLowerCase().replace('-', ' '), /^read committed$/);
  });
}, { engines: ['postgres', 'mysql'] });
