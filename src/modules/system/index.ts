import type { Module } from '../../module.ts';
import { cronJobModel, emailNotificationModel, emailSentModel, workEventModel } from './system-models.ts';

export { cronJobModel, emailNotificationModel, emailSentModel, workEventModel };

/** E-mail templates and sent e-mails, cron jobs and work events of the reference installation (data only). */
export function systemModule(): Module {
  return { name: 'system', models: [emailNotificationModel, emailSentModel, cronJobModel, workEventModel] };
}
