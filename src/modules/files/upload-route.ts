import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { MultipartStream } from '../../http/multipart-stream.ts';
import { addResourceRoute, type Handler } from '../../http/resource-route.ts';
import { storeUploads } from './attached-file-operations.ts';
import { attachedFileModel } from './file-models.ts';
import { filesOf } from './files-runtime.ts';
import { receiveUpload } from './receive-upload.ts';

/**
 * `POST /api/3/uploadFiles` (reference section 8; PUT as the reference accepts it): the files of
 * the multipart field `files[]` become attached files, all or none. Answers 200 with a bare array
 * of the stored files (the spec; the reference wrapped it in `{"files": [...]}`).
 */
export function registerUploadRoute(app: FastifyInstance, ctx: AppContext): void {
  const resource = 'uploadFiles';
  ctx.customResources.add(resource);
  const handler: Handler = async (request) => {
    if (!(request.body instanceof MultipartStream)) throw new AppError('file-required');
    const { limits, spoolDir } = filesOf(ctx);
    const upload = await receiveUpload(request.body, limits, spoolDir, (field) => field === 'files[]');
    try {
      if (!upload.files.length) throw new AppError('file-required');
      return await storeUploads(ctx, upload.files);
    } finally {
      await upload.discard();
    }
  };
  const method = { handler, streamsFiles: true, shape: attachedFileModel };
  addResourceRoute(app, { resource, urls: [`/api/3/${resource}`], methods: { POST: method, PUT: method } });
}
