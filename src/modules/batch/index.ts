import type { Module } from '../../module.ts';
import { registerBatchRoutes } from './batch-routes.ts';

/** Batches: many operations in one request, each answered in order; atomic when asked (docs/batches.md). */
export function batchModule(): Module {
  return { name: 'batch', register: registerBatchRoutes };
}
