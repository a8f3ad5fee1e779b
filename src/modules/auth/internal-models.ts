import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/**
 * Failed authentications per client address (spec "Limits"). In the database so that every
 * instance behind a load balancer counts the same failures (architecture section 8).
 */
export const incidentModel = defineModel({
  name: 'ApiIncident',
  table: 'api_incidents',
  internal: true,
  fields: {
    id: f.serial(),
    ip: f.string(45, { notNull: true }),
    /** The instance that recorded it: each instance counts its own failures from memory. */
    instance: f.string(36, { notNull: true, default: '' }),
    /** Milliseconds since the epoch. */
    time: f.double({ notNull: true }),
  },
  indexes: [['time'], ['ip', 'time']],
});
