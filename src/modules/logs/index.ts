import type { Module } from '../../module.ts';
import { logMessageModel } from './log-model.ts';

export { logMessageModel };

/** The installation's log messages. */
export function logsModule(): Module {
  return { name: 'logs', models: [logMessageModel] };
}
