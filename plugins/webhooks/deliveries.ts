import type { DbExecutor } from '../../src/db/database.ts';
import type { PluginContext } from '../../src/plugins/plugin-api.ts';
import { signatureHeader } from './signature.ts';
import { reachable } from './target-check.ts';
import { eventMatcher } from './webhook-models.ts';

/** After this many failed attempts a delivery is `failed` (a re-send starts it again). */
export const MAX_ATTEMPTS = 8;
/** While an instance sends a delivery, others leave it alone for this long. */
const LEASE_SECONDS = 60;
const TIMEOUT_MS = 10_000;
const BATCH = 20;

export interface WebhookOptions {
  allowPrivate: boolean;
  /** First retry after this, doubling each attempt, at most an hour. */
  retryBaseSeconds: number;
}

/**
 * Fan-out: reads the event log after the cursor and makes one pending delivery per matching
 * enabled webhook and event, then moves the cursor, in one transaction. Instances racing here make
 * the same rows (the unique key ignores the second) and the same cursor.
 */
export async function fanOut(ctx: PluginContext): Promise<number> {
  const db = ctx.db;
  const hooks = (await db.selectFrom('webhooks').select(['id', 'events', 'sinceid']).where('enabled', '=', ctx.dialect.boolean(true) as never).execute())
    .map((hook) => ({ id: Number(hook.id), since: Number(hook.sinceid), matches: eventMatcher(String(hook.events)) }));
  const stored = await db.selectFrom('webhook_cursor').select('lastid').where('name', '=', 'log').executeTakeFirst();
  // Nothing before the oldest webhook's start concerns anyone.
  const after = Math.max(Number(stored?.lastid ?? 0), hooks.length ? Math.min(...hooks.map((hook) => hook.since)) : 0);
  const { events, last } = await ctx.readEvents(after, 500);
  if (last <= after) return 0;
  const now = ctx.clock.timestamp();
  const rows = events.flatMap((event) => hooks.filter((hook) => event.id > hook.since && hook.matches(event.type))
    .map((hook) => ({ idwebhook: hook.id, eventid: event.id, eventtype: event.type, status: 'pending', attempts: 0, nexttry: now, created: now })));
  await ctx.inTransaction(async (trx) => {
    for (let i = 0; i < rows.length; i += 200) {
      await ctx.dialect.insertIgnore(trx.insertInto('webhook_deliveries').values(rows.slice(i, i + 200)), ['idwebhook', 'eventid']).execute();
    }
    await ctx.dialect.insertIgnore(trx.insertInto('webhook_cursor').values({ name: 'log', lastid: 0 }), ['name']).execute();
    await trx.updateTable('webhook_cursor').set({ lastid: last }).where('name', '=', 'log').where('lastid', '<', last).execute();
  });
  return rows.length;
}

/** Takes due deliveries for this instance: rows locked by another instance are skipped where the engine can. */
async function claim(ctx: PluginContext): Promise<Array<Record<string, unknown>>> {
  return ctx.inTransaction(async (trx: DbExecutor) => {
    const rows = await ctx.dialect.claiming(trx.selectFrom('webhook_deliveries').selectAll().where('status', '=', 'pending').where('nexttry', '<=', ctx.clock.timestamp()).orderBy('id').limit(BATCH)).execute();
    if (rows.length) {
      await trx.updateTable('webhook_deliveries').set({ nexttry: ctx.clock.timestamp(LEASE_SECONDS * 1000) }).where('id', 'in', rows.map((row) => row.id)).execute();
    }
    return rows;
  });
}

/**
 * Sends due deliveries, each a JSON POST signed with its webhook's secret, outside any
 * transaction; records the answer: delivered on a 2xx, else another attempt after a growing
 * pause, `failed` after MAX_ATTEMPTS.
 */
export async function deliverDue(ctx: PluginContext, options: WebhookOptions): Promise<number> {
  const due = await claim(ctx);
  for (const delivery of due) {
    const hook = await ctx.db.selectFrom('webhooks').select(['url', 'secret', 'enabled']).where('id', '=', delivery.idwebhook as number).executeTakeFirst();
    const event = await ctx.readEvent(Number(delivery.eventid));
    let code: number | null = null;
    let error: string | null = null;
    if (!hook || !event) error = 'webhook-or-event-gone';
    else if (!(await reachable(String(hook.url), options.allowPrivate))) error = 'private-address-refused';
    else {
      const body = JSON.stringify({ id: event.id, type: event.type, created: new Date(event.created).toISOString(), data: event.payload });
      try {
        const response = await fetch(String(hook.url), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'invoicing-api-webhooks/1',
            'x-webhook-id': String(delivery.id),
            'x-webhook-event': event.type,
            'x-webhook-signature': signatureHeader(String(hook.secret), body, Math.floor(ctx.clock.now() / 1000)),
          },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        code = response.status;
        await response.body?.cancel();
        if (code < 200 || code >= 300) error = `http-${code}`;
      } catch (failure) {
        error = String((failure as Error).name === 'TimeoutError' ? 'timeout' : (failure as Error).message).slice(0, 200);
      }
    }
    const attempts = Number(delivery.attempts) + 1;
    const retryIn = Math.min(3600, options.retryBaseSeconds * 2 ** (attempts - 1)) * 1000;
    await ctx.db.updateTable('webhook_deliveries').set(error === null
      ? { status: 'delivered', attempts, responsecode: code, lasterror: null, delivered: ctx.clock.timestamp(), nexttry: null }
      : { status: attempts >= MAX_ATTEMPTS ? 'failed' : 'pending', attempts, responsecode: code, lasterror: error, nexttry: ctx.clock.timestamp(retryIn) })
      .where('id', '=', delivery.id as number).execute();
  }
  return due.length;
}
