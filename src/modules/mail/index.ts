import type { Module } from '../../module.ts';
import { emailNotificationModel, emailOptOutModel, emailReminderModel, emailSentModel } from './mail-models.ts';
import { guardMailSettings } from './mail-settings.ts';
import { registerMailRoutes } from './mail-routes.ts';
import { queueReminders } from './payment-reminders.ts';
import { sendDue } from './send-due.ts';
import { templatesSeed } from './templates-seed.ts';

export { emailNotificationModel, emailSentModel };

/**
 * E-mail (docs/email.md): documents sent to their customer or supplier through an outbox
 * (`emailsent`) that a background sender empties, templates (`emailnotification`), payment
 * reminders, and the SMTP settings (`settings/email`, `settings/email-<idempresa>`, SMTP_URL).
 */
export function mailModule(): Module {
  return {
    name: 'mail',
    models: [emailNotificationModel, emailSentModel, emailOptOutModel, emailReminderModel],
    seeds: [templatesSeed],
    setup: guardMailSettings,
    register: registerMailRoutes,
    jobs: [
      { name: 'mail-send', intervalMs: (ctx) => ctx.config.mail.pollMs, run: sendDue },
      { name: 'mail-reminders', intervalMs: (ctx) => Math.max(ctx.config.mail.pollMs, 600_000), run: queueReminders },
    ],
  };
}
