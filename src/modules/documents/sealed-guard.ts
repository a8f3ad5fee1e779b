import type { AppContext } from '../../app-context.ts';
import { linesDiffer, sealedChanges, sealedError, sealOf } from './document-hooks.ts';
import { DOCUMENT_TYPES } from './document-types.ts';

/**
 * Sealed documents (document-hooks.ts) on every path through the model store, not only the
 * engine's use cases: a plugin's `store.update` of an issued invoice's header, or a store write of
 * one of its lines, is refused in the write's transaction as the engine refuses it.
 */
export function guardSealedDocuments(ctx: AppContext): void {
  for (const type of DOCUMENT_TYPES) {
    ctx.store.watch([type.header.resource], async (db, _model, change) => {
      if (change?.action !== 'update' || !change.before) return;
      const fields = sealedChanges(change.before, change.record);
      if (!fields.length) return;
      const seal = await sealOf(ctx, db, type, change.before[type.key]);
      if (seal) throw sealedError(seal, fields);
    });
    ctx.store.watch([type.line.resource], async (db, _model, change) => {
      // A batch insert (a document being created) says nothing of its lines: the document is new, so unsealed.
      if (!change || (change.action === 'update' && !linesDiffer([change.before!], [change.record]))) return;
      const seal = await sealOf(ctx, db, type, change.record[type.key]);
      if (seal) throw sealedError(seal, ['lineas']);
    });
  }
}
