/**
 * The webhooks plugin (docs/events.md#webhooks): delivers the events of the event log to the
 * URLs of `webhook` records as signed JSON POSTs, in the background, with retries and a delivery
 * log (`webhookdelivery`). Deliveries come from the log, so a restart loses none, and instances
 * share them out without sending one twice.
 */
import type { PluginApi, PluginDefinition } from '../../src/plugins/plugin-api.ts';
import { deliverDue, fanOut, type WebhookOptions } from './deliveries.ts';
import { webhookModels } from './webhook-models.ts';

export default function webhooks(api: PluginApi): PluginDefinition {
  const { webhook, delivery, cursor } = webhookModels(api);
  // Receivers inside the network (127.0.0.1, 10.x ...) only when the installation says so.
  const options: WebhookOptions = {
    allowPrivate: /^(1|true|yes)$/i.test(process.env.WEBHOOKS_ALLOW_PRIVATE ?? ''),
    retryBaseSeconds: retryBase(process.env.WEBHOOKS_RETRY_BASE_SECONDS),
  };
  return {
    models: [webhook, delivery, cursor],
    routes: (ctx) => [
      {
        // Sends a delivery again (after `failed`, or at once instead of waiting for its next try).
        method: 'POST',
        path: 'webhookdelivery/:id/resend',
        resource: 'webhookdelivery',
        async handler(request) {
          const id = Number((request.params as { id: string }).id);
          const found = Number.isInteger(id) && (await ctx.db.selectFrom('webhook_deliveries').select('id').where('id', '=', id).executeTakeFirst());
          if (!found) throw new api.AppError('record-not-found');
          await ctx.db.updateTable('webhook_deliveries').set({ status: 'pending', attempts: 0, nexttry: ctx.clock.timestamp() }).where('id', '=', id).execute();
          return ctx.store.get(delivery, id);
        },
      },
    ],
    jobs: [
      { name: 'fan-out', intervalMs: 1000, run: (ctx) => fanOut(ctx) },
      { name: 'deliver', intervalMs: 1000, run: (ctx) => deliverDue(ctx, options) },
    ],
  };
}

/** WEBHOOKS_RETRY_BASE_SECONDS: 0..3600, default 10 (a value that is no such number is refused at start). */
function retryBase(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 10;
  const seconds = /^\d{1,4}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(seconds <= 3600)) throw new Error(`WEBHOOKS_RETRY_BASE_SECONDS must be a whole number of seconds from 0 to 3600, not "${raw}"`);
  return seconds;
}
