import fs from 'node:fs/promises';
import path from 'node:path';
import type { Module } from '../../module.ts';
import { attachedFilePresenter, attachedFileWriter } from './attached-file-resource.ts';
import { registerDownloadRoute } from './download-route.ts';
import { dropLinksOfDeletedRecords } from './file-links-cleanup.ts';
import { attachedFileModel, attachedFileRelationModel, fileContentModel, serviceSecretModel } from './file-models.ts';
import { filesOf, startFiles } from './files-runtime.ts';
import { productImageModel, productImageThumbnailModel } from './product-images/product-image-model.ts';
import { setupProductImages } from './product-images/product-image-resource.ts';
import { registerUploadRoute } from './upload-route.ts';

export { attachedFileModel, attachedFileRelationModel, productImageModel };
export { attachedFileContent, attachedImage, linkedFiles } from './file-storage.ts';
export { filesOf } from './files-runtime.ts';
export { receiveUpload } from './receive-upload.ts';
export { thumbnailPathOf, thumbnailPrefixOf } from './stored-name.ts';
export type { FileStore } from './storage/file-store.ts';

/** A spooled upload older than this belongs to no request still running. */
const STALE_SPOOL_MS = 60 * 60_000;

/**
 * Attached files, their bytes (FILES_STORAGE: local or database), uploads, signed download links
 * and links of files to records. See docs/files.md.
 */
export function filesModule(): Module {
  return {
    name: 'files',
    models: [attachedFileModel, attachedFileRelationModel, fileContentModel, serviceSecretModel, productImageModel, productImageThumbnailModel],
    async setup(ctx) {
      await startFiles(ctx);
      ctx.writers.set(attachedFileModel, attachedFileWriter(ctx));
      ctx.presenters.set(attachedFileModel, attachedFilePresenter(ctx));
      dropLinksOfDeletedRecords(ctx);
      setupProductImages(ctx);
    },
    register(server, ctx) {
      registerUploadRoute(server, ctx);
      registerDownloadRoute(server, ctx);
    },
    jobs: [
      {
        // Repairs what a crash left: bytes linked by a transaction that never committed, spooled uploads.
        name: 'files-recover',
        intervalMs: () => 10 * 60_000,
        async run(ctx) {
          const { store, spoolDir } = filesOf(ctx);
          const db = ctx.database.kysely;
          await store.recover(async (stored) => (await db.selectFrom('attached_files').select('idfile').where('path', '=', stored).executeTakeFirst()) !== undefined);
          const names = await fs.readdir(spoolDir).catch(() => [] as string[]);
          for (const name of names) {
            const file = path.join(spoolDir, name);
            const stat = await fs.stat(file).catch(() => undefined);
            if (stat && Date.now() - stat.mtimeMs > STALE_SPOOL_MS) await fs.rm(file, { force: true });
          }
        },
      },
    ],
  };
}
