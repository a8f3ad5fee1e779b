import type { AppContext } from '../../app-context.ts';
import { dbBoolean, rowReader } from '../../db/row-codec.ts';
import { publish, type PublishedEvent } from '../../event-log.ts';
import type { AccessEvent } from '../../events.ts';
import { apiAccessModel, apiKeyModel } from './auth-models.ts';

/**
 * The events of keys and their rules, logged in the transaction of the change (every write to them
 * goes through the store: API, CLI, the initial key): `apikey.created`, `apikey.enabled` and
 * `apikey.disabled` when a key's `enabled` flag changes, `access.changed` for every rule created,
 * changed or deleted, also the rules deleted with their key. Payloads hold visible fields only:
 * the token is never stored, and its digest is a hidden field.
 */
export function watchKeyChanges(ctx: AppContext): void {
  ctx.store.watch([apiKeyModel.resource], async (db, _model, change) => {
    if (!change || change.action === 'delete') return;
    const id = Number(change.record.id);
    const event = { id, record: change.record };
    const base = { resource: apiKeyModel.resource, key: id };
    if (change.action === 'create') await publish(db, ctx, { type: 'apikey.created', payload: event, ...base });
    else if (change.before && dbBoolean(change.before.enabled) !== dbBoolean(change.record.enabled)) {
      await publish(db, ctx, { type: dbBoolean(change.record.enabled) ? 'apikey.enabled' : 'apikey.disabled', payload: event, ...base });
    }
  });
  ctx.store.watch([apiAccessModel.resource], async (db, _model, change) => {
    if (!change) return;
    const action = change.action === 'create' ? 'created' : change.action === 'update' ? 'updated' : 'deleted';
    await publish(db, ctx, accessChanged(action, change.record));
  });
  // A key's rules go with it (ON DELETE CASCADE): announced before the key's own delete.
  const readRule = rowReader(apiAccessModel, apiAccessModel.visibleFields);
  ctx.store.guardDelete([apiKeyModel.resource], async ({ db, existing }) => {
    const rules = await db.selectFrom('api_access').select(apiAccessModel.visibleFields).where('idapikey', '=', Number(existing.id)).orderBy('id').execute();
    await publish(db, ctx, ...rules.map((rule) => accessChanged('deleted', readRule(rule))));
  });
}

function accessChanged(action: AccessEvent['action'], rule: Record<string, unknown>): PublishedEvent {
  return {
    type: 'access.changed',
    payload: { action, idapikey: Number(rule.idapikey), resource: String(rule.resource), rule },
    resource: apiAccessModel.resource,
    key: rule.id,
  };
}
