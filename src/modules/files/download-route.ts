import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { combineRanges, parse as parseRange } from 'range-parser';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { filesOf } from './files-runtime.ts';

/** Types a browser shows in place without running anything; every other type is downloaded. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

const THUMBNAIL_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** `filename="..."` in ASCII plus `filename*` in UTF-8 (RFC 6266), so no name can break the header. */
function dispositionOf(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * `GET /MyFiles/<path>?myft=<token>`: the bytes of a stored file or thumbnail to whoever holds a
 * valid link; no API key (the signature is the authorisation). A deleted file's links answer 404.
 * Answers carry the content's type (sniffed at upload), `Content-Length`, `ETag` (304 on
 * `If-None-Match`), one `Range` (206; several ranges are served whole), `nosniff`, a sandboxing
 * CSP, and `Content-Disposition: attachment` for anything but images and PDFs.
 */
export function registerDownloadRoute(app: FastifyInstance, ctx: AppContext): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { store, links } = filesOf(ctx);
    const path = `MyFiles/${(request.params as { '*': string })['*']}`;
    const token = (request.query as Record<string, unknown>).myft;
    const verdict = links.verify(path, token);
    if (verdict === 'invalid') throw new AppError('invalid-download-link');
    if (verdict === 'expired') throw new AppError('download-link-expired');
    let mimetype: string;
    let filename: string;
    if (path.startsWith('MyFiles/Tmp/')) {
      const thumbnail = /^MyFiles\/Tmp\/Thumbnails\/[^/]+\.([a-z]+)$/.exec(path);
      if (!thumbnail || !THUMBNAIL_TYPES[thumbnail[1]!]) throw new AppError('record-not-found');
      mimetype = THUMBNAIL_TYPES[thumbnail[1]!]!;
      filename = path.slice(path.lastIndexOf('/') + 1);
    } else {
      const record = await ctx.database.kysely.selectFrom('attached_files').select(['filename', 'mimetype']).where('path', '=', path).executeTakeFirst();
      if (!record) throw new AppError('record-not-found');
      mimetype = String(record.mimetype || 'application/octet-stream');
      filename = String(record.filename);
    }
    const size = await store.size(path);
    if (size === undefined) throw new AppError('record-not-found');
    const etag = links.tagOf(path, size);
    reply
      .header('Content-Type', mimetype)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'; sandbox")
      .header('Content-Disposition', dispositionOf(INLINE_TYPES.has(mimetype) ? 'inline' : 'attachment', filename))
      .header('Accept-Ranges', 'bytes')
      .header('Cache-Control', 'private, no-cache')
      .header('ETag', etag);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) return reply.code(304).send();
    const rangeHeader = request.headers.range;
    const ifRange = request.headers['if-range'];
    const parsed = rangeHeader && (!ifRange || ifRange === etag) ? parseRange(size, rangeHeader) : undefined;
    // code 2: no satisfiable range; code 1 (malformed) is ignored, as RFC 9110 allows.
    if (parsed?.code === 2) {
      reply.header('Content-Range', `bytes */${size}`);
      throw new AppError('range-not-satisfiable');
    }
    const ranges = parsed?.code === 0 && parsed.type === 'bytes' ? combineRanges(parsed.ranges) : [];
    if (ranges.length === 1) {
      const { start, end } = ranges[0]!;
      return reply
        .code(206)
        .header('Content-Range', `bytes ${start}-${end}/${size}`)
        .header('Content-Length', String(end - start + 1))
        .send(await store.read(path, { start, end }));
    }
    return reply.header('Content-Length', String(size)).send(await store.read(path));
  };
  app.route({ method: 'GET', url: '/MyFiles/*', config: { public: true }, handler });
}
