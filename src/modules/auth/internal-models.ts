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
 * Requests per API key and minute (fair use, docs/deploy.md): each instance adds what it served to
 * its key's row of the current minute now and then, and reads the others' sums back.
 */
export const rateWindowModel = defineModel({
  name: 'ApiRateWindow',
  table: 'api_rate_windows',
  internal: true,
  fields: {
    id: f.serial(),
    idapikey: f.integer({ notNull: true }),
    /** Minutes since the epoch. */
    ventana: f.integer({ notNull: true }),
    cuenta: f.integer({ notNull: true, default: 0 }),
  },
  unique: [['idapikey', 'ventana']],
  indexes: [['ventana']],
});
