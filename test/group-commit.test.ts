import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { it } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../src/db/database.ts';
import { addWarning, afterCommit, afterRollback, inTransaction, warningsOf } from '../src/db/transaction.ts';
import { forEachEngine, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Group commit (src/db/group-commit.ts): concurrent creations share a transaction, each in its own
 * savepoint. Two instances on one database, each sharing its own commits, the serie's lock between
 * them; a document refused after its number was taken (an invoice dated before the serie's last
 * one) in the middle of a shared commit gives its number back, and the others keep theirs.
 */
const PER_INSTANCE = 24;
const REFUSED = new Set([6, 12, 18]);

/** The transaction shape a database runs: B begin, S/R/X a member's savepoint, release, rollback to it, C commit, Y rollback. */
function trace(database: Database): string[] {
  const tokens: string[] = [];
  database.counter.observer = ({ sql }) => {
    const text = sql.trim().toLowerCase();
    const token = text === 'begin' || text.startsWith('begin ') || text.startsWith('start transaction') ? 'B'
      : text === 'commit' ? 'C'
      : text === 'rollback' ? 'Y'
      : text === 'savepoint group_member' ? 'S'
      : text === 'release savepoint group_member' ? 'R'
      : text === 'rollback to savepoint group_member' ? 'X'
      : undefined;
    if (token) tokens.push(token);
  };
  return tokens;
}

function dayBefore(date: string): string {
  const day = new Date(`${date}T12:00:00Z`);
  day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString().slice(0, 10);
}

forEachEngine('group commit', (t) => {
  it('two instances share commits; a document refused in the middle of one consumes no number', async () => {
    const url = t().databaseUrl;
    const other = await startTestApp(t().engine, { url, config: { groupCommit: 'on' } });
    const instances: TestApp[] = [t(), other];
    try {
      assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'GROUP', nombre: 'Group commit' })).status, 201);
      assert.equal((await t().call('POST', '/api/3/serie', { codserie: 'GC', descripcion: 'Group commit' })).status, 201);
      const first = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'GROUP', codserie: 'GC', lineas: [{ descripcion: 'First', cantidad: 1, pvpunitario: 5 }] });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(Number(first.body.doc.numero), 1);
      // Warm the other instance's caches, so that its creations arrive together.
      assert.equal((await other.call('GET', '/api/3/facturaclientes?limit=1')).status, 200);
      const today = String(first.body.doc.fecha);

      const traces = instances.map((instance) => trace(instance.app.ctx.database));
      const sent = instances.flatMap((instance, which) => Array.from({ length: PER_INSTANCE }, (_, i) => ({
        refused: REFUSED.has(i),
        answer: instance.call('POST', '/api/3/crearFacturaCliente', {
          codcliente: 'GROUP', codserie: 'GC', ...(REFUSED.has(i) ? { fecha: dayBefore(today) } : {}),
          lineas: [{ descripcion: `Instance ${which} line ${i}`, cantidad: 1, pvpunitario: 10 + i }],
        }),
      })));
      const answers = await Promise.all(sent.map(async ({ refused, answer }) => ({ refused, ...(await answer) })));
      for (const instance of instances) instance.app.ctx.database.counter.observer = undefined;

      for (const answer of answers) {
        if (answer.refused) {
          assert.equal(answer.status, 422, JSON.stringify(answer.body));
          assert.equal(answer.body.message, 'invoice-date-order');
        } else {
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
        }
      }
      const made = answers.filter((answer) => !answer.refused);
      const numbers = made.map((answer) => Number(answer.body.doc.numero)).sort((a, b) => a - b);
      assert.deepEqual(numbers, Array.from({ length: made.length }, (_, i) => i + 2), 'gap-free: the refused took none');
      for (const answer of made) assert.equal(answer.body.doc.fecha, today);

      // What is stored: the serie holds exactly these invoices, each with its own accounting entry.
      const stored = await t().call('GET', '/api/3/facturaclientes?filter[codserie]=GC&sort[numero]=ASC&limit=100');
      assert.equal(stored.body.length, made.length + 1);
      assert.equal(new Set(stored.body.map((doc: any) => doc.idasiento)).size, made.length + 1);
      assert.ok(stored.body.every((doc: any) => typeof doc.idasiento === 'number'));

      // Commits were shared, and a refused document was rolled back to its savepoint between others.
      const shapes = traces.map((tokens) => tokens.join(''));
      const commits = shapes.map((shape) => (shape.match(/C/g) ?? []).length);
      for (const [which, count] of commits.entries()) {
        assert.ok(count > 0 && count < PER_INSTANCE - REFUSED.size, `instance ${which}: ${count} commits for ${PER_INSTANCE - REFUSED.size} documents (${shapes[which]})`);
      }
      assert.ok(shapes.some((shape) => /B(?:SX?R)*SXR(?:SX?R)*SR(?:SX?R)*C/.test(shape)), `a refusal between shared members: ${shapes.join(' | ')}`);
    } finally {
      await other.close();
    }
  });

  it('keeps each member its own: a refusal undoes only itself, a deadlock runs all again, after-commit work runs once for the committed', async () => {
    const { database } = t().app.ctx;
    await sql`CREATE TABLE group_probe (member integer NOT NULL)`.execute(database.kysely);
    try {
      const caller = new AsyncLocalStorage<number>();
      const committed: number[] = [];
      const undone: number[] = [];
      const runs = [0, 0, 0, 0, 0];
      const members = [0, 1, 2, 3, 4].map((member) => caller.run(member, () => inTransaction(database, async (trx) => {
        runs[member]! += 1;
        assert.equal(caller.getStore(), member, 'runs in its caller\'s context');
        await trx.insertInto('group_probe').values({ member }).execute();
        afterCommit(trx, () => committed.push(member));
        afterRollback(trx, () => void undone.push(member));
        addWarning(trx, { code: `member-${member}` });
        // 0 (the first, without a savepoint) and 2 (in the middle) are refused; 3 meets a deadlock once.
        if (member === 0 || member === 2) throw new Error(`refused ${member}`);
        if (member === 3 && runs[3] === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        return warningsOf(trx).map((warning) => warning.code);
      }, { shared: true })));
      const outcomes = await Promise.allSettled(members);
      assert.deepEqual(outcomes.map((outcome) => outcome.status), ['rejected', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      assert.equal((outcomes[2] as PromiseRejectedResult).reason.message, 'refused 2');
      for (const member of [1, 3, 4]) assert.deepEqual((outcomes[member] as PromiseFulfilledResult<string[]>).value, [`member-${member}`]);
      const rows = await database.kysely.selectFrom('group_probe').select('member').orderBy('member').execute();
      assert.deepEqual(rows.map((row) => Number(row.member)), [1, 3, 4]);
      // In the order they ran, once each: the committed attempt's.
      assert.deepEqual(committed, [1, 3, 4]);
      // The deadlock rolled back 1 too, which had run with 3: both ran again; the refused ran once.
      assert.deepEqual(runs, [1, 2, 1, 2, 1]);
      assert.deepEqual(undone, [0, 2, 1, 3]);

      // A member that keeps deadlocking runs as many times as its caller allows, then fails.
      let tries = 0;
      await assert.rejects(inTransaction(database, async () => {
        tries += 1;
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }, { shared: true, attempts: 2 }), /deadlock detected/);
      assert.equal(tries, 2);
    } finally {
      await sql`DROP TABLE group_probe`.execute(database.kysely);
    }
  });

  it('lets the event loop turn between members, so that a busy server goes on accepting connections', async () => {
    const { database } = t().app.ctx;
    const tokens = trace(database);
    const seen: string[] = [];
    await Promise.all([0, 1, 2].map((member) => inTransaction(database, async (trx) => {
      seen.push(`start ${member}`);
      await sql`SELECT 1`.execute(trx);
      // Runs at the next turn of the event loop (libuv accepts one new connection per turn). On
      // SQLite nothing else turns it inside a group (better-sqlite3 answers synchronously).
      setImmediate(() => seen.push(`turn after ${member}`));
    }, { shared: true })));
    database.counter.observer = undefined;
    assert.equal(tokens.join(''), 'BSRSRC', 'the three members shared one transaction');
    for (const member of [0, 1]) {
      const turn = seen.indexOf(`turn after ${member}`);
      assert.ok(turn >= 0 && turn < seen.indexOf(`start ${member + 1}`), seen.join(', '));
    }
  });
}, { config: { groupCommit: 'on' } });

forEachEngine('group commit by default', (t) => {
  it('is on for SQLite only: on PostgreSQL and MariaDB concurrent creations keep transactions of their own', async () => {
    const { database } = t().app.ctx;
    assert.equal(database.groupCommit, t().engine === 'sqlite');
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'OWN', nombre: 'Own transactions' })).status, 201);
    const tokens = trace(database);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => t().call('POST', '/api/3/crearFacturaCliente', {
      codcliente: 'OWN', lineas: [{ descripcion: `Line ${i}`, cantidad: 1, pvpunitario: 1 + i }],
    })));
    database.counter.observer = undefined;
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const shape = tokens.join('');
    if (database.groupCommit) assert.match(shape, /B(SR)+C/, shape);
    else assert.deepEqual([...shape].sort().join(''), 'BBBBBBCCCCCC', shape);
  });
});

it('keeps a SQLite group\'s savepoint journal in memory, and temporary storage on files outside groups', async () => {
  const app = await startTestApp('sqlite');
  try {
    const { database } = app.app.ctx;
    const tempStore = async (db: Database['kysely']) => Number((await sql<{ temp_store: number }>`PRAGMA temp_store`.execute(db)).rows[0]!.temp_store);
    // 2 = MEMORY while each member runs (read by the pager when the group's write transaction
    // begins); 0 = DEFAULT (files) before and after the group.
    assert.equal(await tempStore(database.kysely), 0);
    const seen = await Promise.all([0, 1, 2].map(() => inTransaction(database, (trx) => tempStore(trx), { shared: true })));
    assert.deepEqual(seen, [2, 2, 2]);
    assert.equal(await tempStore(database.kysely), 0);
  } finally {
    await app.close();
  }
});
