import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';
import { validationError } from '../../errors.ts';
import { checkSettings } from './settings.ts';

/**
 * Installation settings: one row per group (`default`, `email` ...) holding a JSON object.
 * Updates merge into the stored object (a key set to null is removed), so that
 * `PUT /api/3/settings/default {"properties":{"enable_api":false}}` changes one setting only.
 */
export const settingsModel = defineModel({
  name: 'Settings',
  table: 'settings',
  fields: {
    name: f.string(50, { primary: true }),
    properties: f.json(),
  },
  // A group's `password` key (the e-mail group's SMTP password) is written, never shown.
  redact(record) {
    const properties = record.properties;
    if (!properties || typeof properties !== 'object' || Array.isArray(properties) || !('password' in properties)) return record;
    const { password: _secret, ...shown } = properties as Record<string, unknown>;
    return { ...record, properties: shown };
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      const incoming = values.properties;
      if (incoming === undefined) return;
      // A group is an object of keys: anything else would replace every setting at once.
      if (!incoming || typeof incoming !== 'object' || Array.isArray(incoming)) throw validationError({ properties: 'invalid-json' });
      if ((existing?.name ?? values.name) === 'default') {
        const errors = await checkSettings(db, incoming as Record<string, unknown>);
        if (Object.keys(errors).length) throw validationError(errors);
      }
      const merged: Record<string, unknown> = { ...((existing?.properties as Record<string, unknown>) ?? {}), ...incoming };
      for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
      values.properties = merged;
    },
  },
});
