import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/**
 * The reference's background machinery, kept as data: the cron job registry and the work-event
 * queue. This service does not run those jobs; clients may read and keep the records. (E-mail
 * templates and sent e-mails belong to the mail module.)
 */

/** Registered cron jobs and their last run (table `cronjobs`). */
export const cronJobModel = defineModel({
  name: 'CronJob',
  table: 'cronjobs',
  fields: {
    daily_exec: f.integer({ default: 0 }),
    date: f.timestamp(),
    done: f.boolean({ default: false }),
    duration: f.double(),
    enabled: f.boolean({ default: true }),
    failed: f.boolean({ default: false }),
    fails: f.integer({ default: 0 }),
    id: f.serial(),
    jobname: f.string(50, { notNull: true }),
    last_duration: f.double({ default: 0 }),
    pluginname: f.string(50),
    running: f.integer({ default: 0 }),
  },
});

/** Queued work events (table `work_events`); `creation_date` is the moment of queueing. */
export const workEventModel = defineModel({
  name: 'WorkEvent',
  table: 'work_events',
  fields: {
    creation_date: f.timestamp({ notNull: true, initial: now }),
    done: f.boolean({ default: false }),
    done_date: f.timestamp(),
    execution_time: f.double(),
    id: f.serial(),
    name: f.string(100, { notNull: true }),
    nick: f.string(50),
    params: f.text(),
    value: f.string(100),
    worker_list: f.string(200),
    workers: f.integer(),
  },
});
