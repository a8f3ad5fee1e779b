import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { addWarning } from '../../db/transaction.ts';
import { publish } from '../../event-log.ts';
import { CodedFailure } from '../../errors.ts';

/**
 * Why a document or payment could not be posted (the reference's warning keys: `closed-exercise`,
 * `customer-account-not-found`, `irpf-record-not-found` ...). Thrown before anything of the entry
 * is written, so the record is still saved, without its entry. An entry that would not balance is
 * no `NotPosted`: it refuses the whole operation (accounting's `unbalanced`).
 */
export class NotPosted extends CodedFailure {}

/** What a posting is about, for its warning and event. */
export interface PostingSubject {
  resource: string;
  id: number;
  codejercicio: string | null;
}

/**
 * Runs a posting; a `NotPosted` becomes a warning of the operation's answer (`warnings`) and an
 * `accounting.not-posted` event, logged with the change. Any other error refuses the operation.
 */
export async function postOrWarn(ctx: AppContext, db: DbExecutor, subject: PostingSubject, post: () => Promise<void>): Promise<void> {
  try {
    await post();
  } catch (error) {
    if (!(error instanceof NotPosted)) throw error;
    addWarning(db, { code: error.code, resource: subject.resource, id: subject.id, codejercicio: subject.codejercicio, ...error.detail });
    ctx.log.warn({ accounting: { ...subject, code: error.code, ...error.detail } }, 'not posted to the accounts');
    await publish(db, ctx, {
      type: 'accounting.not-posted', payload: { ...subject, code: error.code, detail: error.detail }, resource: subject.resource, key: subject.id,
    });
  }
}
