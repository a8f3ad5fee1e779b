import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { LOGGED_EVENT_TYPES, readEventLog, type LoggedEvent } from '../../event-log.ts';
import { addResourceRoute } from '../../http/resource-route.ts';

/** The feed's resource name (access rules, root listing). */
export const FEED_RESOURCE = 'events';
export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;

const CURSOR_PREFIX = 'ev1:';

/** The opaque cursor of an event id: base64url of a versioned text, so that its form may change. */
export function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`, 'utf8').toString('base64url');
}

/** The id of a cursor the feed gave, or 400 `invalid-cursor`. */
export function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^ev1:(0|[1-9]\d{0,14})$/.exec(text);
  if (!match || encodeCursor(Number(match[1])) !== cursor) throw new AppError('invalid-cursor');
  return Number(match[1]);
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new AppError('duplicate-parameter', { parameter: name });
  return value === undefined || value === null ? undefined : String(value);
}

/**
 * The types a `type` parameter selects: comma-separated event types, prefixes ending in `.*`
 * (`document.*`), or `*`; undefined for every type.
 */
export function selectedTypes(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const selected = new Set<string>();
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (item === '*') return undefined;
    const matching = item.endsWith('.*')
      ? LOGGED_EVENT_TYPES.filter((type) => type.startsWith(item.slice(0, -1)))
      : LOGGED_EVENT_TYPES.filter((type) => type === item);
    if (!matching.length) throw new AppError('invalid-event-type', { value: item.slice(0, 100) });
    for (const type of matching) selected.add(type);
  }
  return [...selected];
}

function readLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const limit = /^\d{1,7}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(limit >= 1 && limit <= FEED_MAX_LIMIT)) throw new AppError('invalid-limit', { max: FEED_MAX_LIMIT });
  return limit;
}

function feedItem(event: LoggedEvent) {
  return {
    cursor: encodeCursor(event.id),
    id: event.id,
    type: event.type,
    resource: event.resource,
    key: event.key,
    created: new Date(event.created).toISOString(),
    payload: event.payload,
  };
}

/**
 * `GET /api/3/events?after=<cursor>&type=<types>&limit=<n>` (docs/events.md): the event log in
 * order after the cursor, and the cursor to continue from (`next`, also in `X-Next-Cursor`).
 * `latest=<n>` instead of `after`: the newest n events, to show what just happened and follow on.
 */
export function registerEventFeed(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add(FEED_RESOURCE);
  addResourceRoute(app, {
    resource: FEED_RESOURCE,
    urls: [`/api/3/${FEED_RESOURCE}`],
    methods: {
      GET: {
        handler: async (request, reply) => {
          const query = (request.query ?? {}) as Record<string, unknown>;
          const cursor = single(query, 'after');
          const latest = readLimit(single(query, 'latest'));
          if (latest !== undefined && cursor) throw new AppError('invalid-cursor', { reason: 'cursor-with-latest' });
          const after = cursor === undefined || cursor === '' ? 0 : decodeCursor(cursor);
          const types = selectedTypes(single(query, 'type'));
          const limit = latest ?? readLimit(single(query, 'limit')) ?? FEED_DEFAULT_LIMIT;
          const page = await readEventLog(ctx.database.kysely, { after, types, limit, newest: latest !== undefined, now: ctx.clock.now(), gapMs: ctx.config.eventsGapMs });
          if (page.expired) throw new AppError('events-cursor-expired');
          const next = encodeCursor(page.last);
          reply.header('X-Next-Cursor', next);
          return { events: page.events.map(feedItem), next, more: page.more };
        },
      },
    },
  });
}
