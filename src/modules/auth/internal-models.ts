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

/**
 * Version counters of cached state (keys, rules, settings). Any instance that changes them bumps
 * the counter; every instance polls it and reloads its caches when it moves.
 */
export const stateVersionModel = defineModel({
  name: 'ApiStateVersion',
  table: 'api_state',
  internal: true,
  fields: {
    name: f.string(50, { primary: true }),
    version: f.integer({ notNull: true, default: 0 }),
  },
});
