import type { AppContext } from '../../app-context.ts';
import { attachedFileRelationModel } from './file-models.ts';

/**
 * Links of files to a record (`attached_files_rel`: the model's class name and the record's
 * integer key or code) go when the record goes, in its delete's transaction, whatever module
 * deleted it. The file itself stays: other records may link it.
 */
export function dropLinksOfDeletedRecords(ctx: AppContext): void {
  ctx.store.onDeleted(async ({ db, model, existing }) => {
    if (model.internal || model === attachedFileRelationModel) return;
    const key = existing[model.primaryKey];
    if (key === null || key === undefined) return;
    const links = db.deleteFrom('attached_files_rel').where('model', '=', model.name);
    await (typeof key === 'number' ? links.where('modelid', '=', key) : links.where('modelcode', '=', String(key))).execute();
  });
}
