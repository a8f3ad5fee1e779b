import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/** Log and audit entries (`logs`), e.g. document changes in the `docs` and `audit` channels. */
export const logMessageModel = defineModel({
  name: 'LogMessage',
  table: 'logs',
  fields: {
    channel: f.string(40),
    context: f.text(),
    id: f.serial(),
    idcontacto: f.integer(),
    ip: f.string(45),
    level: f.string(15, { notNull: true }),
    message: f.text({ notNull: true }),
    model: f.string(30),
    modelcode: f.string(40),
    nick: f.string(50),
    time: f.timestamp({ notNull: true, initial: now }),
    uri: f.string(200),
  },
});
