import type { Module } from '../../module.ts';
import { emailNotificationModel, emailOptOutModel, emailReminderModel, emailSentModel } from './mail-models.ts';
import { guardMailSettings } from './mail-settings.ts';
import { readSendRequest } from './mail-request.ts';
import { recurringInvoiceIssued } from '../recurring/index.ts';
import { sendDocument } from './send-document.ts';
import { registerMailRoutes } from './mail-routes.ts';
import { queueReminders } from './payment-reminders.ts';
import { sendDue } from './send-due.ts';
import { templatesSeed } from './templates-seed.ts';

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
    setup(ctx) {
      guardMailSettings(ctx);
      // A recurring invoice whose template sends its invoices: to the customer, with its PDF, once.
      ctx.hooks.on(recurringInvoiceIssued, async (issued) => {
        await sendDocument(ctx, issued.type, String(issued.idfactura), readSendRequest({}, true), null, issued.claim);
        return true;
      });
    },
    register: registerMailRoutes,
    jobs: [
      { name: 'mail-send', intervalMs: (ctx) => ctx.config.mail.pollMs, run: sendDue },
      { name: 'mail-reminders', intervalMs: (ctx) => Math.max(ctx.config.mail.pollMs, 600_000), run: queueReminders },
    ],
  };
}
