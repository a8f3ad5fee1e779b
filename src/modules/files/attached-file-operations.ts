import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import type { Values } from '../../models/define-model.ts';
import { attachedFileModel } from './file-models.ts';
import { filesOf } from './files-runtime.ts';
import type { FileStore } from './storage/file-store.ts';
import type { SpooledFile } from './receive-upload.ts';
import { storedPathOf, thumbnailPrefixOf } from './stored-name.ts';
import { checkPrecondition } from '../../db/preconditions.ts';

type Row = Record<string, unknown>;

/** The path a record holds between its insert and the moment its id names its bytes. */
const PENDING_PATH = 'MyFiles/Tmp/pending';

/**
 * Puts the bytes at the first free path of `pathOf` (no variant, then random ones): never over
 * another file, even one left by an earlier installation on the same data folder, nor over the
 * bytes being replaced (`taken`).
 */
async function putUnique(trx: DbExecutor, store: FileStore, file: SpooledFile, pathOf: (variant?: string) => string, taken?: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const path = pathOf(attempt === 0 ? undefined : randomBytes(3).toString('hex'));
    if (path === taken) continue;
    try {
      await store.put(trx, path, file.tmp);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
    }
  }
}

async function storeOne(ctx: AppContext, trx: DbExecutor, file: SpooledFile, metadata: Values): Promise<Row> {
  const { record } = await ctx.store.create(attachedFileModel, { ...metadata, filename: metadata.filename ?? file.name, path: PENDING_PATH, mimetype: file.mimetype, size: file.size }, trx);
  const idfile = Number(record.idfile);
  const path = await putUnique(trx, filesOf(ctx).store, file, (variant) => storedPathOf(idfile, file.name, String(record.date), variant));
  await trx.updateTable('attached_files').set({ path }).where('idfile', '=', idfile).execute();
  const saved = { ...record, path };
  await publish(trx, ctx, { type: 'file.uploaded', payload: { file: saved, replaced: false }, resource: attachedFileModel.resource, key: idfile });
  return saved;
}

/**
 * Stores received files as attached files, all or none: one transaction creates the records and
 * puts their bytes at `MyFiles/<yyyy>/<mm>/<idfile>_<slug>.<ext>`; `file.uploaded` follows the
 * commit for each.
 */
export async function storeUploads(ctx: AppContext, files: SpooledFile[], metadata: Values = {}): Promise<Row[]> {
  return inTransaction(ctx.database, async (trx) => {
    const stored: Row[] = [];
    for (const file of files) stored.push(await storeOne(ctx, trx, file, metadata));
    return stored;
  });
}

/**
 * Replaces the bytes of an attached file (and its metadata): the new bytes get a new path, so that
 * links and ETags of the old ones stop matching; the old bytes and thumbnails go with the commit.
 */
export async function replaceUpload(ctx: AppContext, idfile: number, file: SpooledFile, metadata: Values): Promise<Row> {
  const { store } = filesOf(ctx);
  return inTransaction(ctx.database, async (trx) => {
    const existing = await ctx.store.get(attachedFileModel, idfile, trx, 'all', true);
    if (!existing) throw new AppError('record-not-found');
    // A request's If-Match is checked here, under the lock, before the bytes change (db/preconditions.ts).
    await checkPrecondition(trx, attachedFileModel, idfile);
    const today = ctx.clock.today();
    const path = await putUnique(trx, store, file, (variant) => storedPathOf(idfile, file.name, today.date, variant), String(existing.path));
    await store.remove(trx, String(existing.path));
    await store.removePrefix(trx, thumbnailPrefixOf(idfile));
    await trx.updateTable('attached_files').set({ path, mimetype: file.mimetype, size: file.size }).where('idfile', '=', idfile).execute();
    const saved = await ctx.store.update(attachedFileModel, idfile, { filename: file.name, ...metadata }, trx);
    await publish(trx, ctx, { type: 'file.uploaded', payload: { file: saved, replaced: true }, resource: attachedFileModel.resource, key: idfile });
    return saved;
  });
}

/** Deletes an attached file, its bytes, thumbnails, links to records and product images; `file.deleted` follows. */
export async function deleteAttachedFile(ctx: AppContext, idfile: number): Promise<Row> {
  const { store } = filesOf(ctx);
  return inTransaction(ctx.database, async (trx) => {
    const removed = await ctx.store.remove(attachedFileModel, idfile, trx);
    await store.remove(trx, String(removed.path));
    await store.removePrefix(trx, thumbnailPrefixOf(idfile));
    await publish(trx, ctx, { type: 'file.deleted', payload: { file: removed }, resource: attachedFileModel.resource, key: idfile });
    return removed;
  });
}
