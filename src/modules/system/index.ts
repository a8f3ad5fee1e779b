import type { Module } from '../../module.ts';
import { cronJobModel, workEventModel } from './system-models.ts';

export { cronJobModel, workEventModel };

/** Cron jobs and work events of the reference installation (data only). */
export function systemModule(): Module {
  return { name: 'system', models: [cronJobModel, workEventModel] };
}
