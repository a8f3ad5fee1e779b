import { AsyncLocalStorage } from 'node:async_hooks';
import type { Model } from '../models/define-model.ts';
import type { FieldValue } from '../models/fields.ts';
import type { DbExecutor } from './database.ts';

/**
 * A request's precondition on the record it writes (`If-Match`, http/conditional.ts): checked where
 * the write locks that record, inside its transaction, so that no other write can come between
 * the check and this one. The store's update and delete, the document engine's lock and an attached
 * file's replacement are the lock points; `check` throws to refuse (412).
 */
export interface Precondition {
  model: Model;
  id: FieldValue;
  check(db: DbExecutor): Promise<void>;
  /** The transaction a lock point checked it in: later lock points of that transaction see this write's own changes. */
  checkedIn?: DbExecutor;
}

const preconditions = new AsyncLocalStorage<Precondition>();

/** Runs `fn` (a request's handler) under its precondition. */
export function withPrecondition<T>(precondition: Precondition, fn: () => T): T {
  return preconditions.run(precondition, fn);
}

/**
 * Called by a lock point once it holds `model`'s record `id` locked in `db`'s transaction: checks
 * the running request's precondition when it is about that record.
 */
export async function checkPrecondition(db: DbExecutor, model: Model, id: unknown): Promise<void> {
  const precondition = preconditions.getStore();
  if (!precondition || precondition.model.table !== model.table || String(precondition.id) !== String(id) || precondition.checkedIn === db) return;
  await precondition.check(db);
  precondition.checkedIn = db;
}

/** Whether the running request has a precondition on `model`'s record `id` (a writer that does not lock it first takes a path that does). */
export function hasPrecondition(model: Model, id: unknown): boolean {
  const precondition = preconditions.getStore();
  return Boolean(precondition && precondition.model.table === model.table && String(precondition.id) === String(id));
}
