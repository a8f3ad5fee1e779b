import { pruneEventLog } from '../../event-log.ts';
import type { Module } from '../../module.ts';
import { registerEventFeed } from './event-feed.ts';

export { decodeCursor, encodeCursor, FEED_RESOURCE } from './event-feed.ts';

/** How often the log is pruned of events older than EVENTS_RETENTION_DAYS. */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * The change feed over the event log (`GET /api/3/events`, docs/events.md) and the log's
 * retention. The log itself (`event_log`, `publish`) is the core's: src/event-log.ts.
 */
export function eventsModule(): Module {
  return {
    name: 'events',
    register(server, ctx) {
      registerEventFeed(server, ctx);
    },
    jobs: [{
      name: 'events-prune',
      intervalMs: () => PRUNE_EVERY_MS,
      run: (ctx) => pruneEventLog(ctx.database.kysely, ctx.clock.now() - ctx.config.eventsRetentionDays * 86_400_000),
    }],
  };
}
