import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * The body of a multipart request to a route that streams uploads (route config `streamsFiles`):
 * not parsed ahead, so that files go to storage as they arrive instead of into memory. The
 * handler reads `stream` once (see files/receive-upload.ts); nothing else may.
 */
export class MultipartStream {
  readonly stream: Readable;
  readonly headers: IncomingHttpHeaders;
  constructor(stream: Readable, headers: IncomingHttpHeaders) {
    this.stream = stream;
    this.headers = headers;
  }
}
