import assert from 'node:assert/strict';
import { eventually } from './helpers/eventually.ts';
import { before, it } from 'node:test';
import { beforeCommit, inTransaction } from '../src/db/transaction.ts';
import { publish } from '../src/event-log.ts';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * The event log (outbox) and the change feed, docs/events.md: events are written with their change
 * and never for one that rolled back; the feed returns them in order across pages, filtered by type,
 * with tombstones for deletions, behind an access rule; old events are pruned; a reader never
 * passes an event whose transaction is still to commit.
 */

/** The suite's clock runs this far ahead of the system's (to age holes in the log without waiting). */
let offset = 0;
const GAP_MS = 30_000;

type Feed = { status: number; body: any; headers: Record<string, unknown> };

const feed = (t: TestApp, query = '', key?: string): Promise<Feed> => t.call('GET', `/api/3/events${query ? `?${query}` : ''}`, undefined, key);

/** Every event after `after` (a cursor, '' from the start), page by page; and the cursor to go on from. */
async function drain(t: TestApp, after = '', extra = '', limit = 1000): Promise<{ events: any[]; next: string; pages: number }> {
  const events: any[] = [];
  let next = after;
  for (let pages = 1; ; pages++) {
    const page = await feed(t, `after=${next}&limit=${limit}${extra ? `&${extra}` : ''}`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.headers['x-next-cursor'], page.body.next);
    events.push(...page.body.events);
    next = page.body.next;
    if (!page.body.more) return { events, next, pages };
  }
}

const countEvents = async (t: TestApp) => Number((await t.app.ctx.database.kysely.selectFrom('event_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const lastId = async (t: TestApp) => Number((await t.app.ctx.database.kysely.selectFrom('event_log').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow()).id ?? 0);

async function created(t: TestApp, url: string, body: Record<string, unknown>, status = 201): Promise<any> {
  const answer = await t.call('POST', url, body);
  assert.equal(answer.status, status, `${url}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

forEachEngine('event log and change feed', (t) => {
  before(async () => {
    await created(t(), '/api/3/cliente', { codcliente: 'EVL', nombre: 'Event Log' });
    await created(t(), '/api/3/producto', { referencia: 'EVL1', precio: 10, ventasinstock: true });
    // Sold only from stock, and there is none: creating a document with it fails midway.
    await created(t(), '/api/3/producto', { referencia: 'EVL0', precio: 10, ventasinstock: false });
  });

  it('logs an invoice creation with its model events, and announces them after the commit', async () => {
    const { events } = await drain(t());
    const from = events.length ? events[events.length - 1].cursor : '';
    const announced: string[] = [];
    const off = t().app.ctx.events.on('document.created', async (event) => {
      // After the commit, outside the transaction: a read through another connection sees the log.
      const logged = await t().app.ctx.database.kysely.selectFrom('event_log').select('id').where('type', '=', 'document.created').where('recordkey', '=', String(event.doc.idfactura)).execute();
      announced.push(`${event.type}:${event.doc.idfactura}:${logged.length}`);
    });
    const invoice = await created(t(), '/api/3/crearFacturaCliente', { codcliente: 'EVL', pagada: true, lineas: [{ referencia: 'EVL1', cantidad: 2 }, { descripcion: 'Service', cantidad: 1, pvpunitario: 5 }] }, 200);
    // The listener runs after the commit and reads through another connection: on a loaded machine
    // its read may finish after the answer came.
    await eventually(async () => assert.equal(announced.length, 1));
    off();
    const id = invoice.doc.idfactura;
    const { events: after } = await drain(t(), from);
    const types = after.map((event) => `${event.type}:${event.resource}`);
    assert.ok(types.includes('model.save:facturacliente'), types.join());
    assert.equal(types.filter((type) => type === 'model.save:lineafacturacliente').length, 2, types.join());
    const doc = after.find((event) => event.type === 'document.created');
    assert.equal(doc.resource, 'facturacliente');
    assert.equal(doc.key, String(id));
    assert.equal(doc.payload.type, 'FacturaCliente');
    assert.equal(doc.payload.doc.codigo, invoice.doc.codigo);
    assert.equal(doc.payload.lines.length, 2);
    assert.match(doc.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const paid = after.filter((event) => event.type === 'receipt.paid');
    assert.ok(paid.length >= 1 && paid.every((event) => event.resource === 'recibocliente' && event.payload.paid === true), JSON.stringify(paid));
    const recorded = after.find((event) => event.type === 'payment.recorded');
    assert.deepEqual([recorded.key, recorded.payload.idfactura, recorded.payload.count >= 1], [String(id), id, true]);
    // In publication order: the header before its lines, the document event after its records.
    assert.ok(types.indexOf('model.save:facturacliente') < types.indexOf('model.save:lineafacturacliente'));
    assert.ok(types.indexOf('model.save:lineafacturacliente') < types.indexOf('document.created:facturacliente'));
    assert.deepEqual(after.map((event) => event.id), [...after.map((event) => event.id)].sort((a, b) => a - b));
    assert.deepEqual(announced, [`FacturaCliente:${id}:1`]);
  });

  it('writes no event for a change that rolls back, nor for reads', async () => {
    const count = await countEvents(t());
    const last = await lastId(t());
    const seen: string[] = [];
    const off = t().app.ctx.events.on('model.save', (event) => void seen.push(event.model));
    // Header and lines are inserted, then the stock check fails: all of it rolls back.
    const failed = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'EVL', lineas: [{ referencia: 'EVL1' }, { referencia: 'EVL0', cantidad: 3 }] });
    assert.equal(failed.status, 422, JSON.stringify(failed.body));
    assert.equal(failed.body.message, 'not-enough-stock');
    assert.equal((await t().call('POST', '/api/3/cliente', { nombre: null })).status, 422);
    await t().call('GET', '/api/3/cliente/EVL');
    await t().call('GET', '/api/3/cliente?limit=5');
    off();
    assert.equal(await countEvents(t()), count);
    assert.deepEqual(seen, []);
    // The failed creation took no id either: events are written only when the transaction commits.
    await created(t(), '/api/3/cliente', { codcliente: 'EVL2', nombre: 'Next' });
    const rows = await t().app.ctx.database.kysely.selectFrom('event_log').select('id').where('id', '>', last).orderBy('id').execute();
    assert.deepEqual(rows.map((row) => Number(row.id)), [last + 1]);
  });

  it('logs key and access rule events, never with the token', async () => {
    const { next: from } = await drain(t());
    const key = await created(t(), '/api/3/apikey', { description: 'Events key' });
    const token = String(key.apikey);
    assert.equal(token.length, 20);
    assert.equal((await t().call('PATCH', `/api/3/apikey/${key.id}`, { enabled: false })).status, 200);
    assert.equal((await t().call('PATCH', `/api/3/apikey/${key.id}`, { description: 'Renamed' })).status, 200);
    assert.equal((await t().call('PATCH', `/api/3/apikey/${key.id}`, { enabled: true })).status, 200);
    const rule = await created(t(), '/api/3/apiaccess', { idapikey: key.id, resource: 'cliente', allowget: true, allowpost: false, allowput: false, allowdelete: false });
    assert.equal((await t().call('PATCH', `/api/3/apiaccess/${rule.id}`, { allowpost: true })).status, 200);
    assert.equal((await t().call('DELETE', `/api/3/apiaccess/${rule.id}`)).status, 200);
    const kept = await created(t(), '/api/3/apiaccess', { idapikey: key.id, resource: 'producto', allowget: true });
    assert.equal((await t().call('DELETE', `/api/3/apikey/${key.id}`)).status, 200);

    const { events } = await drain(t(), from, 'type=apikey.*,access.changed,model.delete');
    const summary = events.map((event) => {
      if (event.type === 'access.changed') return `${event.type}:${event.payload.action}:${event.payload.resource}:${event.key}`;
      if (event.type === 'model.delete') return `${event.type}:${event.resource}:${event.key}`;
      return `${event.type}:${event.key}:${event.payload.record.enabled}`;
    });
    assert.deepEqual(summary, [
      `apikey.created:${key.id}:true`,
      `apikey.disabled:${key.id}:false`,
      `apikey.enabled:${key.id}:true`,
      `access.changed:created:cliente:${rule.id}`,
      `access.changed:updated:cliente:${rule.id}`,
      `model.delete:apiaccess:${rule.id}`,
      `access.changed:deleted:cliente:${rule.id}`,
      `access.changed:created:producto:${kept.id}`,
      // The rules deleted with their key are announced too, before the key's tombstone.
      `access.changed:deleted:producto:${kept.id}`,
      `model.delete:apikey:${key.id}`,
    ]);
    assert.equal(events.find((event) => event.type === 'access.changed').payload.idapikey, key.id);
    assert.equal(events[0].payload.record.description, 'Events key');
    // Neither the token nor its digest is anywhere in the log.
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256').update(token).digest('hex');
    const all = JSON.stringify(await t().app.ctx.database.kysely.selectFrom('event_log').selectAll().execute());
    assert.ok(!all.includes(token) && !all.includes(digest));
    assert.ok(!('apikey' in events[0].payload.record));
  });

  it('feeds creations, updates and deletions in order across pages, with tombstones', async () => {
    const { next: from } = await drain(t());
    await created(t(), '/api/3/cliente', { codcliente: 'FEED1', nombre: 'One' });
    await created(t(), '/api/3/cliente', { codcliente: 'FEED2', nombre: 'Two' });
    assert.equal((await t().call('PATCH', '/api/3/cliente/FEED1', { nombre: 'One bis' })).status, 200);
    assert.equal((await t().call('DELETE', '/api/3/cliente/FEED2')).status, 200);
    const { events, pages } = await drain(t(), from, 'type=model.*', 2);
    assert.ok(pages >= 2, `${pages} pages`);
    const clientes = events.filter((event) => event.resource === 'cliente');
    assert.deepEqual(clientes.map((event) => [event.type, event.key, event.payload.created ?? null, event.payload.record.nombre]), [
      ['model.save', 'FEED1', true, 'One'],
      ['model.save', 'FEED2', true, 'Two'],
      ['model.save', 'FEED1', false, 'One bis'],
      ['model.delete', 'FEED2', null, 'Two'],
    ]);
    // Each event's cursor continues right after it.
    const second = await feed(t(), `after=${clientes[1].cursor}&type=model.*&limit=1`);
    assert.equal(second.body.events[0].id > clientes[1].id, true);
    assert.equal(second.body.more, true);
    // Caught up: an empty page keeps the cursor where it was.
    const end = await drain(t(), from, 'type=model.*', 2);
    const empty = await feed(t(), `after=${end.next}`);
    assert.deepEqual([empty.status, empty.body.events, empty.body.next, empty.body.more], [200, [], end.next, false]);
  });

  it('filters by type: names, prefixes and lists; refuses bad parameters', async () => {
    await created(t(), '/api/3/crearFacturaCliente', { codcliente: 'EVL', lineas: [{ referencia: 'EVL1' }] }, 200);
    const documents = await drain(t(), '', 'type=document.*');
    assert.ok(documents.events.length >= 2);
    assert.ok(documents.events.every((event) => event.type.startsWith('document.')));
    const two = await drain(t(), '', 'type=document.created, payment.recorded');
    assert.deepEqual([...new Set(two.events.map((event) => event.type))].sort(), ['document.created', 'payment.recorded']);
    const all = await drain(t(), '', 'type=*');
    assert.equal(all.events.length, await countEvents(t()));
    // A filtered reader that reached the end continues from the same place as an unfiltered one.
    assert.equal(documents.next, all.next);

    const bad: Array<[string, number, string]> = [
      ['type=document.create', 400, 'invalid-event-type'],
      ['type=nothing.*', 400, 'invalid-event-type'],
      ['type=document.', 400, 'invalid-event-type'],
      ['type=model.load', 400, 'invalid-event-type'],
      ['after=nonsense!', 400, 'invalid-cursor'],
      ['after=MTIz', 400, 'invalid-cursor'],
      [`after=${Buffer.from('ev1:-1').toString('base64url')}`, 400, 'invalid-cursor'],
      ['after=a&after=b', 400, 'duplicate-parameter'],
      ['limit=0', 400, 'invalid-limit'],
      ['limit=1001', 400, 'invalid-limit'],
      ['limit=ten', 400, 'invalid-limit'],
    ];
    for (const [query, status, message] of bad) {
      const answer = await feed(t(), query);
      assert.deepEqual([answer.status, answer.body.message], [status, message], query);
    }
    assert.equal((await feed(t(), 'limit=1000')).status, 200);
    assert.equal((await t().call('POST', '/api/3/events', {})).status, 405);
  });

  it('gives the newest events with `latest`, and a cursor that follows on from them', async () => {
    const { events: before } = await drain(t());
    const first = await created(t(), '/api/3/cliente', { codcliente: 'EVLN1', nombre: 'Latest one' });
    await created(t(), '/api/3/cliente', { codcliente: 'EVLN2', nombre: 'Latest two' });
    const all = await drain(t());
    const newest = await feed(t(), 'latest=3');
    assert.equal(newest.status, 200, JSON.stringify(newest.body));
    // The last three of the whole log, oldest first, and nothing more to page through.
    assert.deepEqual(newest.body.events.map((event: any) => event.id), all.events.slice(-3).map((event) => event.id));
    assert.equal(newest.body.more, false);
    assert.equal(newest.body.next, all.next);
    const customers = await feed(t(), 'latest=5&type=model.save');
    assert.ok(customers.body.events.every((event: any) => event.type === 'model.save'));
    assert.equal(customers.body.events.at(-1).key, 'EVLN2');
    assert.ok(customers.body.events.some((event: any) => event.key === first.codcliente));
    // Following on from `next` gives what happens afterwards, and only that.
    await created(t(), '/api/3/cliente', { codcliente: 'EVLN3', nombre: 'After' });
    const after = await drain(t(), newest.body.next);
    assert.deepEqual(after.events.map((event) => event.key), ['EVLN3']);
    assert.ok(before.length < all.events.length);
    for (const [query, message] of [['latest=0', 'invalid-limit'], ['latest=1001', 'invalid-limit'], [`latest=2&after=${all.next}`, 'invalid-cursor']]) {
      const answer = await feed(t(), query!);
      assert.deepEqual([answer.status, answer.body.message], [400, message], query);
    }
  });

  it('needs an access rule for `events`, and is listed at the root', async () => {
    const key = await created(t(), '/api/3/apikey', { description: 'Feed reader' });
    assert.equal((await feed(t(), '', key.apikey)).status, 403);
    await created(t(), '/api/3/apiaccess', { idapikey: key.id, resource: 'events', allowget: true, allowpost: false, allowput: false, allowdelete: false });
    const allowed = await feed(t(), 'limit=1', key.apikey);
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.equal(allowed.body.events.length, 1);
    assert.ok((await t().call('GET', '/api/3')).body.resources.includes('events'));
  });

  it('never breaks nor waits for a failing or slow listener', async () => {
    const offs = [
      t().app.ctx.events.on('model.save', () => {
        throw new Error('listener failure');
      }),
      t().app.ctx.events.on('model.save', () => new Promise<void>(() => {})),
      t().app.ctx.events.on('model.save', async () => {
        throw new Error('async listener failure');
      }),
    ];
    const started = Date.now();
    const answer = await t().call('POST', '/api/3/cliente', { codcliente: 'SLOW', nombre: 'Slow listeners' });
    offs.forEach((off) => off());
    assert.equal(answer.status, 201);
    assert.ok(Date.now() - started < 2000);
    const logged = await t().app.ctx.database.kysely.selectFrom('event_log').select('id').where('resource', '=', 'cliente').where('recordkey', '=', 'SLOW').execute();
    assert.equal(logged.length, 1);
  });

  it('stops before an event still to commit, and passes a hole once the events after it are old', async () => {
    const { ctx } = t().app;
    if (t().engine === 'sqlite') {
      // One writer at a time: commits never overtake each other, and a rolled-back write gives its
      // ids back, so the log never has a hole and the feed never waits.
      const { next: start } = await drain(t());
      const before = await lastId(t());
      await assert.rejects(inTransaction(ctx.database, async (trx) => {
        // A row written now (as a commit group's member writes its events) takes an id; one
        // published goes with the commit, which never comes.
        await trx.insertInto('event_log').values({ type: 'model.save', resource: 'test', recordkey: 'lost', payload: JSON.stringify({ model: 'test', record: { name: 'lost' }, created: true }), created: Date.now() }).execute();
        await publish(trx, ctx, { type: 'model.save', payload: { model: 'test', record: { name: 'lost' }, created: true }, resource: 'test', key: 'lost' });
        beforeCommit(trx, async () => {
          throw new Error('rolled back after writing');
        });
      }), /rolled back after writing/);
      await created(t(), '/api/3/cliente', { codcliente: 'GAP0', nombre: 'No hole' });
      const { events } = await drain(t(), start);
      assert.equal(events[0].id, before + 1);
      assert.ok(events.some((event) => event.key === 'GAP0') && !events.some((event) => event.key === 'lost'));
      return;
    }
    const { next: start } = await drain(t());
    let flushed!: () => void;
    let release!: () => void;
    const written = new Promise<void>((resolve) => (flushed = resolve));
    const hold = new Promise<void>((resolve) => (release = resolve));
    // A transaction that writes an event and then waits before committing. (The service's own
    // transactions write theirs with their commit, in its round trip, where they can: a hole then
    // lasts as long as a commit; a commit group's members and held requests write them earlier.)
    const slow = inTransaction(ctx.database, async (trx) => {
      await trx.insertInto('event_log').values({ type: 'model.save', resource: 'test', recordkey: 'slow', payload: JSON.stringify({ model: 'test', record: { name: 'slow' }, created: true }), created: Date.now() }).execute();
      beforeCommit(trx, async () => {
        flushed();
        await hold;
      });
    });
    await written;
    // A later change commits first: its events have higher ids.
    await created(t(), '/api/3/cliente', { codcliente: 'GAP1', nombre: 'Overtaking' });
    const waiting = await feed(t(), `after=${start}`);
    assert.deepEqual([waiting.body.events, waiting.body.next], [[], start]);
    // The newest events stop before the hole too, and following on from them misses nothing.
    const newest = await feed(t(), 'latest=5');
    assert.ok(!newest.body.events.some((event: any) => event.key === 'GAP1'), JSON.stringify(newest.body.events.map((event: any) => event.key)));
    release();
    await slow;
    const { events, next } = await drain(t(), start);
    assert.deepEqual(events.map((event) => event.key), ['slow', 'GAP1']);
    assert.deepEqual((await drain(t(), newest.body.next)).events.map((event) => event.key), ['slow', 'GAP1']);

    // A transaction that rolls back after writing an event leaves a hole for good.
    await assert.rejects(inTransaction(ctx.database, async (trx) => {
      await trx.insertInto('event_log').values({ type: 'model.save', resource: 'test', recordkey: 'lost', payload: JSON.stringify({ model: 'test', record: { name: 'lost' }, created: true }), created: Date.now() }).execute();
      beforeCommit(trx, async () => {
        throw new Error('rolled back after writing');
      });
    }), /rolled back after writing/);
    await created(t(), '/api/3/cliente', { codcliente: 'GAP2', nombre: 'After the hole' });
    assert.deepEqual((await feed(t(), `after=${next}`)).body.events, []);
    offset += GAP_MS + 1000;
    const passed = await drain(t(), next);
    assert.deepEqual(passed.events.map((event) => event.key), ['GAP2']);
  });

  it('prunes events older than the retention, keeping the newest', async () => {
    const db = t().app.ctx.database.kysely;
    const first = await feed(t(), 'limit=3');
    const [oldest, , third] = first.body.events;
    const old = t().app.ctx.clock.now() - 31 * 86_400_000;
    // The first three events are made old; so is the newest, which stays all the same.
    const newest = await lastId(t());
    await db.updateTable('event_log').set({ created: old }).where((eb) => eb.or([eb('id', '<=', third.id), eb('id', '=', newest)])).execute();
    const count = await countEvents(t());
    await t().app.runJob('events-prune');
    assert.equal(await countEvents(t()), count - 3);
    assert.equal(await lastId(t()), newest);
    const rest = await feed(t(), 'limit=1');
    assert.ok(rest.body.events[0].id > third.id);
    // A reader whose place was pruned away is told to start over.
    const expired = await feed(t(), `after=${oldest.cursor}`);
    assert.deepEqual([expired.status, expired.body.message], [410, 'events-cursor-expired']);
    const fine = await feed(t(), `after=${third.cursor}`);
    assert.equal(fine.status, 200);
    // Nothing is newer than the retention: nothing more goes.
    await t().app.runJob('events-prune');
    assert.equal(await countEvents(t()), count - 3);
  });
}, { clock: { now: () => Date.now() + offset }, config: { eventsGapMs: GAP_MS } });
