import type { AppContext } from '../../app-context.ts';
import type { DocumentInput } from './document-input.ts';
import type { DocumentResult } from './document-repository.ts';
import { paymentEvents } from './document-events.ts';
import type { DocumentType } from './document-types.ts';
import { prepareDocument } from './prepare-document.ts';
import { writeDocument } from './write-document.ts';


/**
 * Creates a business document with its lines (the `crear<Doc>` endpoints): prepared holding no
 * lock, then written in a short locked phase (document-parts.ts, docs/performance.md).
 * Everything or nothing, and a rolled back creation consumes no number. Where the database groups
 * commits (`Database.groupCommit`: SQLite by default) and no idempotency key holds the request's
 * transaction, concurrent creations share a commit (group-commit.ts), each in its own savepoint:
 * a refused one is undone alone.
 */
export async function createDocument(ctx: AppContext, type: DocumentType, input: DocumentInput): Promise<DocumentResult> {
  const prepared = await prepareDocument(ctx, type, input);
  return writeDocument(ctx, {
    ...prepared,
    events: (doc) => (doc.payments ? paymentEvents(type, doc.id, doc.payments.paid, true, doc.payments.recorded) : []),
  });
}
