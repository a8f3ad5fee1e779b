import type { AppContext, RecordPresenter, RecordWriter } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { MultipartStream } from '../../http/multipart-stream.ts';
import type { Values } from '../../models/define-model.ts';
import { readInput } from '../../models/read-input.ts';
import { deleteAttachedFile, replaceUpload, storeUploads } from './attached-file-operations.ts';
import { attachedFileModel } from './file-models.ts';
import { filesOf } from './files-runtime.ts';
import { receiveUpload, type ReceivedUpload } from './receive-upload.ts';

/** The form fields of an upload as record values (`filename`, `date`, `hour`); none: nothing. */
function metadataOf(upload: ReceivedUpload, id?: number): Values {
  return Object.keys(upload.fields).length ? readInput(attachedFileModel, upload.fields, 'form', 'update', id) : {};
}

async function withUpload<T>(ctx: AppContext, body: MultipartStream, work: (upload: ReceivedUpload) => Promise<T>): Promise<T> {
  const { limits, spoolDir } = filesOf(ctx);
  const upload = await receiveUpload(body, limits, spoolDir, () => true);
  try {
    return await work(upload);
  } finally {
    await upload.discard();
  }
}

/**
 * How `attachedfiles` writes (reference section 9): created by a multipart upload of one file
 * (any field name) with optional metadata fields; updated with metadata (JSON, form or multipart)
 * or, given a file, with new bytes; deleted with its bytes.
 */
export function attachedFileWriter(ctx: AppContext): RecordWriter {
  return {
    streamsFiles: true,
    async create(body) {
      if (!(body instanceof MultipartStream)) throw new AppError('file-required');
      return withUpload(ctx, body, async (upload) => {
        if (upload.files.length !== 1) throw new AppError('file-required', { files: upload.files.length });
        return (await storeUploads(ctx, upload.files, metadataOf(upload)))[0]!;
      });
    },
    async update(id, body, source) {
      if (!(body instanceof MultipartStream)) return ctx.store.update(attachedFileModel, id, readInput(attachedFileModel, body, source, 'update', id));
      return withUpload(ctx, body, async (upload) => {
        if (upload.files.length > 1) throw new AppError('file-required', { files: upload.files.length });
        const metadata = metadataOf(upload, Number(id));
        if (upload.files.length === 1) return replaceUpload(ctx, Number(id), upload.files[0]!, metadata);
        if (!Object.keys(metadata).length) throw new AppError('no-data');
        return ctx.store.update(attachedFileModel, id, metadata);
      });
    },
    remove: (id) => deleteAttachedFile(ctx, Number(id)),
  };
}

/** Every attached file shows its `download` (a day) and `download-permanent` links. */
export function attachedFilePresenter(ctx: AppContext): RecordPresenter {
  return {
    properties: { download: { type: 'string' }, 'download-permanent': { type: 'string' } },
    async present(records) {
      const { links } = filesOf(ctx);
      return records.map((record) => ({ ...record, ...links.linksOf(String(record.path)) }));
    },
  };
}
