import { sql } from 'kysely';
import type { Clock } from './clock.ts';
import type { DbExecutor } from './db/database.ts';
import type { Statement } from './db/statement-batch.ts';
import { afterCommit, beforeCommit, commitTail } from './db/transaction.ts';
import { compileStatement, deferToCommit } from './db/statement-batch.ts';
import { insertRows } from './db/insert-shapes.ts';
import type { AppEvents, EventBus } from './events.ts';
import { defineModel } from './models/define-model.ts';
import { f } from './models/fields.ts';

/**
 * The durable event log (an outbox), docs/events.md.
 *
 * - `publish(db, ctx, ...events)` is how every business event is announced: its rows are written
 *   in the transaction `db` (so an event is never lost, nor logged for a change that rolled back),
 *   and the in-process listeners of the EventBus are called once that transaction has committed.
 *   Inside a transaction the rows of all its events are inserted together, by one statement, as
 *   its last write: with its COMMIT, in the commit's round trip, for a transaction of its own
 *   (statement-batch.ts, `deferToCommit`); just before the commit otherwise (a commit group's
 *   member: before its savepoint is released, group-commit.ts). Ids are taken as late as possible,
 *   and a transaction that fails midway takes none.
 * - `readEventLog` reads the log in id order for the change feed (and anything else that follows
 *   the log), never past an id that may still commit (see `readEventLog`).
 * - `pruneEventLog` drops events older than the retention.
 */
export const eventLogModel = defineModel({
  name: 'EventLog',
  table: 'event_log',
  internal: true,
  fields: {
    id: f.serial(),
    type: f.string(60, { notNull: true }),
    /** The resource of the record the event is about (`facturacliente`), when there is one. */
    resource: f.string(100),
    /** That record's primary key, as text. */
    recordkey: f.string(255),
    payload: f.json({ notNull: true }),
    /** When it was written: milliseconds since the epoch (UTC), from the app's clock. */
    created: f.double({ notNull: true }),
  },
  indexes: [['created']],
});

/** Every event but `model.load` (reads are announced in-process only). */
export type LoggedEventType = Exclude<keyof AppEvents, 'model.load'>;

const LOGGED: Record<LoggedEventType, true> = {
  'model.save': true,
  'model.delete': true,
  'document.created': true,
  'document.updated': true,
  'document.deleted': true,
  'document.approved': true,
  'receipt.paid': true,
  'payment.recorded': true,
  'file.uploaded': true,
  'file.deleted': true,
  'apikey.created': true,
  'apikey.enabled': true,
  'apikey.disabled': true,
  'access.changed': true,
  'verifactu.anomaly': true,
  'accounting.not-posted': true,
  'email.sent': true,
  'email.failed': true,
  'recurring.failed': true,
  'ticketbai.state': true,
  'face.state': true,
};

/** The types the log holds (what the feed's `type` filter accepts). */
export const LOGGED_EVENT_TYPES: readonly LoggedEventType[] = Object.keys(LOGGED) as LoggedEventType[];

/**
 * One event to publish. `payload` may be a function: it is then called at the end of the
 * transaction (an event announced early whose record the rest of the change still completes).
 * `resource` and `key` name the record the event is about (the feed shows them; deletions are
 * tombstones by them). `log: false` announces without logging (changes of internal tables).
 */
export type PublishedEvent = {
  [K in LoggedEventType]: {
    type: K;
    payload: AppEvents[K] | (() => AppEvents[K]);
    resource?: string | null;
    key?: unknown;
    log?: boolean;
  };
}[LoggedEventType];

/** What publishes: the app context or the model store (both carry the bus and the clock). */
export interface Publisher {
  events: EventBus;
  clock: Clock;
}

interface Queue {
  via: Publisher;
  events: PublishedEvent[];
  resolved: Array<{ type: LoggedEventType; payload: unknown; answered?: () => unknown }>;
}

/**
 * For a writer whose events go in the same batch as the rows they name (a document committed with
 * its batch, write-document.ts): its texts hold stand-ins for values the database gives in that
 * batch (ids; a late number's placeholders). `written` is a text as SQL that puts them in, and
 * `answered` the text as answered, once the batch is (what the in-process listeners are told).
 */
export interface StandIns {
  insert(db: DbExecutor, model: typeof eventLogModel, rows: ReadonlyArray<Record<string, unknown>>): Statement<unknown>[];
  answered(text: string): string;
}

/** The events a transaction has published and not yet written, by transaction. */
const queues = new WeakMap<object, Queue>();

/** Rows per INSERT: 5 bound values each, well below every engine's limit on bound values. */
const ROWS_PER_STATEMENT = 2000;

/**
 * Publishes events about a change made in `db`: logged in that transaction (one INSERT for all the
 * events of the transaction, just before it commits) and announced to the in-process listeners
 * after its commit, in publication order. Outside a transaction they are written and announced at
 * once. Never put a secret (a key's token) in a payload: payloads are records' visible fields.
 */
export async function publish(db: DbExecutor, via: Publisher, ...events: PublishedEvent[]): Promise<void> {
  if (!events.length) return;
  const queued = queues.get(db);
  if (queued) {
    queued.events.push(...events);
    return;
  }
  const queue: Queue = { via, events: [...events], resolved: [] };
  if (beforeCommit(db, () => write(db, queue))) {
    queues.set(db, queue);
    afterCommit(db, () => announce(queue));
    return;
  }
  await write(db, queue);
  announce(queue);
}

async function write(db: DbExecutor, queue: Queue): Promise<void> {
  // Events published from here on (by later commit work) go to a queue of their own.
  queues.delete(db);
  const inserts = insertsOf(db, queue);
  // Their rows go with the commit, in its round trip, where the transaction allows: nobody reads
  // what they answer, and they stay the transaction's last writes.
  if (inserts.length && commitTail(db)) await deferToCommit(db, inserts);
  else for (const statement of inserts) await db.executeQuery(compileStatement(db, statement));
}

/**
 * For a writer that sends its last statements together (statement-batch.ts): the events published
 * in transaction `db` so far, their payloads resolved now, as inserts to add to its batch (they
 * are then not written again before the commit; events published later still are). Returns
 * whether there were any.
 */
export function queueEventsInto(db: DbExecutor, add: (statement: Statement<unknown>) => void, standIns?: StandIns): boolean {
  const queue = queues.get(db);
  if (!queue?.events.length) return false;
  for (const statement of insertsOf(db, queue, standIns)) add(statement);
  return true;
}

/** The inserts of a queue's events not written yet (taken off it; their resolved payloads kept for the announcement). */
function insertsOf(db: DbExecutor, queue: Queue, standIns?: StandIns) {
  const created = queue.via.clock.now();
  const rows: Array<Record<string, unknown>> = [];
  for (const event of queue.events.splice(0)) {
    const payload = typeof event.payload === 'function' ? event.payload() : event.payload;
    // Serialised only for a row to write, or a payload whose stand-ins must be read back as answered.
    const text = event.log !== false || standIns ? JSON.stringify(payload) : '';
    queue.resolved.push(standIns ? { type: event.type, payload, answered: () => JSON.parse(standIns.answered(text)) } : { type: event.type, payload });
    if (event.log === false) continue;
    const recordkey = event.key === undefined || event.key === null ? null : String(event.key);
    rows.push({
      type: event.type,
      resource: event.resource ?? null,
      recordkey,
      payload: text,
      created,
    });
  }
  const inserts = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const part = rows.slice(start, start + ROWS_PER_STATEMENT);
    inserts.push(...(standIns ? standIns.insert(db, eventLogModel, part) : [insertRows(db, 'event_log', part)]));
  }
  return inserts;
}

function announce(queue: Queue): void {
  const bus = queue.via.events;
  // A payload written with stand-ins is read back as answered only for an event someone listens to.
  for (const { type, payload, answered } of queue.resolved) if (!answered || bus.has(type)) bus.emit(type, (answered ? answered() : payload) as never);
}

/** One event of the log. */
export interface LoggedEvent {
  id: number;
  type: string;
  resource: string | null;
  key: string | null;
  /** Milliseconds since the epoch (UTC). */
  created: number;
  payload: unknown;
}

export interface EventLogQuery {
  /** Events after this id (0: from the oldest kept). */
  after: number;
  /** Only these types (undefined: all). */
  types?: readonly string[];
  limit: number;
  /**
   * The newest `limit` events (oldest first) instead of the first ones after `after`; the page's
   * `last` is then the newest settled id, so that following from it misses nothing.
   */
  newest?: boolean;
  /** Now, in milliseconds since the epoch (the app's clock). */
  now: number;
  /** How old the event after a hole in the ids must be before the hole is taken as a rollback. */
  gapMs: number;
}

export interface EventLogPage {
  events: LoggedEvent[];
  /** Where the next read continues (the id of the last event read, or one known to be settled). */
  last: number;
  /** True when the page is full: more events may follow at once. */
  more: boolean;
  /** True when `after` lies before the oldest event kept: events after it were pruned. */
  expired: boolean;
}

/**
 * A page of the log after `after`, in id order, that never passes an event still to commit.
 *
 * Ids are taken at insert time but transactions commit in any order (PostgreSQL, MariaDB): an id
 * missing from the log may be an event whose transaction has not committed yet, which a reader
 * that moved past it would never see. Ids are never reused, and a transaction writes its events
 * as its last work, so a hole stays open only until it commits (moments: the rest of a shared
 * commit group, or a held request's answer, may come first), or for ever when that transaction
 * rolled back. A page therefore stops before the first hole that is followed by an event younger
 * than `gapMs`; a hole followed by an older event is a rollback and is passed. (SQLite has one writer at a time: holes never appear there.)
 */
export async function readEventLog(db: DbExecutor, query: EventLogQuery): Promise<EventLogPage> {
  const { after, types, limit } = query;
  const found = await db.selectFrom('event_log').select((eb) => eb.fn.min('id').as('first')).executeTakeFirst();
  const oldest = found?.first === null || found?.first === undefined ? undefined : Number(found.first);
  const expired = after > 0 && oldest !== undefined && oldest > after + 1;
  // The first young event whose predecessor id is missing: the page ends before it. (Ids below the
  // oldest event kept were pruned: they are no hole.)
  // `ceiling`, the newest id committed as this statement sees the log, is read with the boundary in
  // one statement: the reads below see later commits too, and an event committed after an id that
  // is still to commit must not be passed over (the boundary is only sure up to the ceiling).
  const boundary = await db
    .selectFrom('event_log as e')
    .select((eb) => [eb.fn.min('e.id').as('first'), eb.selectFrom('event_log as c').select((inner) => inner.fn.max('c.id').as('top')).as('ceiling')])
    .where('e.id', '>', Math.max(after + 1, oldest ?? 0))
    .where('e.created', '>', query.now - query.gapMs)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('event_log as p').select('p.id').where('p.id', '=', sql<number>`${sql.ref('e.id')} - 1`))))
    .executeTakeFirst();
  const first = boundary?.first === null || boundary?.first === undefined ? undefined : Number(boundary.first);
  const ceiling = boundary?.ceiling === null || boundary?.ceiling === undefined ? after : Number(boundary.ceiling);
  const before = Math.min(first ?? Infinity, ceiling + 1);
  let page = db.selectFrom('event_log').select(['id', 'type', 'resource', 'recordkey', 'payload', 'created']).where('id', '>', after).where('id', '<', before);
  if (types) page = page.where('type', 'in', types.length ? [...types] : ['']);
  const rows = query.newest ? (await page.orderBy('id', 'desc').limit(limit).execute()).reverse() : await page.orderBy('id').limit(limit).execute();
  const events = rows.map((row): LoggedEvent => ({
    id: Number(row.id),
    type: String(row.type),
    resource: row.resource === null ? null : String(row.resource),
    key: row.recordkey === null ? null : String(row.recordkey),
    created: Number(row.created),
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
  }));
  const more = !query.newest && events.length === limit;
  let last = events.length ? events[events.length - 1]!.id : after;
  if (!more && (types || query.newest)) {
    // A filtered page that is not full has read every event up to the boundary: continue from there.
    const settled = db.selectFrom('event_log').select((eb) => eb.fn.max('id').as('last')).where('id', '>', after).where('id', '<', before);
    const reached = await settled.executeTakeFirst();
    if (reached?.last !== null && reached?.last !== undefined) last = Number(reached.last);
  }
  return { events, last, more, expired };
}

/**
 * Deletes the events written before `before` (milliseconds since the epoch), but the newest
 * event: SQLite would hand the ids of an emptied table out again, behind readers' cursors.
 */
export async function pruneEventLog(db: DbExecutor, before: number): Promise<number> {
  const newest = await db.selectFrom('event_log').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  if (newest?.id === null || newest?.id === undefined) return 0;
  const result = await db.deleteFrom('event_log').where('created', '<', before).where('id', '<', Number(newest.id)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
