import { randomBytes } from 'node:crypto';
import type { PluginApi } from '../../src/plugins/plugin-api.ts';
import { urlProblem } from './target-check.ts';

/** `events` of a webhook: `*`, or types and prefixes (`document.created, receipt.*`), comma-separated. */
export function eventMatcher(events: string): (type: string) => boolean {
  const patterns = events.split(',').map((item) => item.trim()).filter(Boolean);
  return (type) => patterns.some((pattern) => pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))));
}

/**
 * The webhooks (`webhook`: where to send which events, with a secret shown once) and their
 * deliveries (`webhookdelivery`: one per webhook and event, read-only to clients).
 */
export function webhookModels({ defineModel, f }: PluginApi) {
  const webhook = defineModel({
    name: 'Webhook',
    table: 'webhooks',
    fields: {
      created: f.timestamp({ initial: (clock) => clock.timestamp(), readOnly: true }),
      description: f.string(100),
      enabled: f.boolean({ notNull: true, default: true }),
      events: f.string(500, { notNull: true, default: '*' }),
      id: f.serial(),
      // Signs the deliveries, so it is kept as is; shown once, in the creation's answer.
      secret: f.string(64, { hidden: true, readOnly: true }),
      // The newest event when the webhook was made: it is sent only what happens after.
      sinceid: f.integer({ notNull: true, default: 0, readOnly: true }),
      url: f.string(500, { notNull: true }),
    },
    validate(values) {
      const errors: Record<string, string> = {};
      if (typeof values.url === 'string') {
        const problem = urlProblem(values.url);
        if (problem) errors.url = problem;
      }
      if (typeof values.events === 'string' && !/^\s*(\*|[a-z]+(\.[a-z*]+)*)(\s*,\s*(\*|[a-z]+(\.[a-z*]+)*))*\s*$/.test(values.events)) errors.events = 'invalid-event-list';
      return errors;
    },
    hooks: {
      async beforeSave({ values, existing, reveal, db }) {
        if (existing) return;
        values.secret = randomBytes(32).toString('base64url').slice(0, 43);
        reveal.secret = values.secret;
        const newest = await db.selectFrom('event_log').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
        values.sinceid = Number(newest?.id ?? 0);
      },
    },
  });

  const delivery = defineModel({
    name: 'WebhookDelivery',
    table: 'webhook_deliveries',
    readOnlyResource: true,
    fields: {
      attempts: f.integer({ notNull: true, default: 0 }),
      created: f.timestamp({ initial: (clock) => clock.timestamp() }),
      delivered: f.timestamp(),
      eventid: f.integer({ notNull: true }),
      eventtype: f.string(60, { notNull: true }),
      id: f.serial(),
      idwebhook: f.integer({ notNull: true, references: f.ref('webhooks', 'id', 'CASCADE') }),
      lasterror: f.string(200),
      nexttry: f.timestamp(),
      responsecode: f.integer(),
      // pending (to send, again), delivered, failed (gave up after the last attempt)
      status: f.string(10, { notNull: true, default: 'pending' }),
    },
    unique: [['idwebhook', 'eventid']],
    indexes: [['status', 'nexttry']],
  });

  /** How far the fan-out has read the event log (one row). */
  const cursor = defineModel({
    name: 'WebhookCursor',
    table: 'webhook_cursor',
    internal: true,
    fields: {
      lastid: f.integer({ notNull: true, default: 0 }),
      name: f.string(20, { primary: true }),
    },
  });

  return { webhook, delivery, cursor };
}
