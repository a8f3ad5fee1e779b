import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/**
 * The reference's background machinery, kept as data: e-mail templates and the log of sent
 * e-mails, the cron job registry and the work-event queue. This service does not send e-mail nor
 * run those jobs; clients may read and keep the records.
 */

/** E-mail templates (table `emails_notifications`), by name. */
export const emailNotificationModel = defineModel({
  name: 'EmailNotification',
  table: 'emails_notifications',
  fields: {
    body: f.text(),
    creationdate: f.date(),
    enabled: f.boolean(),
    name: f.string(100, { primary: true }),
    subject: f.string(150, { notNull: true }),
  },
});

/** Sent e-mails (table `emails_sent`); the sender's reference is cleared when the user is deleted. */
export const emailSentModel = defineModel({
  name: 'EmailSent',
  table: 'emails_sent',
  fields: {
    addressee: f.string(100),
    attachment: f.boolean({ default: false }),
    body: f.text(),
    date: f.timestamp(),
    email_from: f.string(100),
    html: f.text(),
    id: f.serial(),
    nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    opened: f.boolean({ default: false }),
    subject: f.string(300),
    uuid: f.string(13),
    verificode: f.string(20),
  },
});

/** Registered cron jobs and their last run (table `cronjobs`). */
export const cronJobModel = defineModel({
  name: 'CronJob',
  table: 'cronjobs',
  fields: {
    date: f.timestamp(),
    done: f.boolean({ default: false }),
    duration: f.double(),
    enabled: f.boolean({ default: true }),
    failed: f.boolean({ default: false }),
    id: f.serial(),
    jobname: f.string(50, { notNull: true }),
    pluginname: f.string(50),
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
    id: f.serial(),
    name: f.string(100, { notNull: true }),
    nick: f.string(30),
    params: f.text(),
    value: f.string(100),
    worker_list: f.string(200),
    workers: f.integer(),
  },
});
