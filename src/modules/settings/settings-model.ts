import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/** Installation settings: one row per group (`default`, `email` ...) holding a JSON object. */
export const settingsModel = defineModel({
  name: 'Settings',
  table: 'settings',
  fields: {
    name: f.string(50, { primary: true }),
    properties: f.json(),
  },
});
