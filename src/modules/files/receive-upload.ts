import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyHeaders } from '@fastify/busboy';
import { AppError } from '../../errors.ts';
import type { MultipartStream } from '../../http/multipart-stream.ts';
import { checkContent } from './content-check.ts';
import { cleanFileName } from './stored-name.ts';

/** A received file, spooled to a temporary file and judged by its content. */
export interface SpooledFile {
  field: string;
  /** The client's name, cleaned (stored-name.ts). */
  name: string;
  tmp: string;
  size: number;
  mimetype: string;
}

export interface ReceivedUpload {
  fields: Record<string, string>;
  files: SpooledFile[];
  /** Removes the temporary files (always called, whatever happened next). */
  discard(): Promise<void>;
}

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
  maxRequestBytes: number;
}

/** Where uploads are spooled: beside the stored files, so that a local store links them into place. */
export function spoolDirOf(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'MyFiles', 'Tmp', 'uploads');
}

/**
 * Reads a multipart upload as it arrives: each file of an accepted field goes straight to a
 * temporary file (never whole in memory), fields are collected as strings. Limits are checked
 * while the bytes arrive (a file past `maxFileBytes`, more than `maxFiles` files, a request past
 * `maxRequestBytes`: 413 at once, reading stops and the connection is closed). Files of other
 * fields are read past and dropped. Every file is then judged by its content (an empty file,
 * a blocked extension or active content: 422 naming it). On any failure nothing is kept.
 */
export async function receiveUpload(body: MultipartStream, limits: UploadLimits, spoolDir: string, accepts: (field: string) => boolean): Promise<ReceivedUpload> {
  await fs.mkdir(spoolDir, { recursive: true });
  const files: SpooledFile[] = [];
  const fields: Record<string, string> = Object.create(null);
  const discard = async () => {
    await Promise.all(files.map((file) => fs.rm(file.tmp, { force: true })));
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let parser: ReturnType<typeof Busboy>;
      try {
        parser = Busboy({
          headers: body.headers as BusboyHeaders,
          limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: 1000, parts: limits.maxFiles + 1000, fieldSize: 1_048_576 },
        });
      } catch {
        reject(new AppError('invalid-body', { reason: 'multipart-boundary-missing' }));
        return;
      }
      const writes: Array<Promise<void>> = [];
      const streams: Array<{ destroy(): void }> = [];
      let received = 0;
      let settled = false;
      const fail = (error: AppError) => {
        if (settled) return;
        settled = true;
        body.stream.removeListener('data', count);
        body.stream.unpipe(parser);
        body.stream.pause();
        // Both ends of every spool are destroyed, so that each write settles; the spooled files
        // are removed (discard) once they have.
        for (const stream of streams) stream.destroy();
        void Promise.allSettled(writes).then(() => reject(error));
      };
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received > limits.maxRequestBytes) fail(new AppError('upload-too-large', { limit: limits.maxRequestBytes }));
      };
      body.stream.on('data', count);
      parser.on('field', (name: string, value: string) => {
        if (!(name in fields)) fields[name] = value;
      });
      parser.on('file', (field: string, stream: NodeJS.ReadableStream, filename: string) => {
        if (settled || !accepts(field)) {
          stream.resume();
          return;
        }
        const spooled: SpooledFile = { field, name: cleanFileName(filename ?? ''), tmp: path.join(spoolDir, `${randomUUID()}.part`), size: 0, mimetype: '' };
        files.push(spooled);
        const sink = createWriteStream(spooled.tmp);
        streams.push(stream as unknown as { destroy(): void }, sink);
        stream.on('data', (chunk: Buffer) => {
          spooled.size += chunk.length;
        });
        stream.on('limit', () => fail(new AppError('upload-file-too-large', { file: spooled.name, limit: limits.maxFileBytes })));
        writes.push(pipeline(stream, sink).catch(() => fail(new AppError('invalid-body', { reason: 'multipart-malformed' }))));
      });
      parser.on('filesLimit', () => fail(new AppError('too-many-files', { limit: limits.maxFiles })));
      parser.on('partsLimit', () => fail(new AppError('too-many-files', { limit: limits.maxFiles })));
      parser.on('fieldsLimit', () => fail(new AppError('body-too-large', { reason: 'too-many-parts' })));
      parser.on('error', () => fail(new AppError('invalid-body', { reason: 'multipart-malformed' })));
      body.stream.on('error', () => fail(new AppError('invalid-body', { reason: 'body-incomplete' })));
      parser.on('finish', () => {
        void Promise.all(writes).then(() => {
          if (settled) return;
          settled = true;
          body.stream.removeListener('data', count);
          resolve();
        });
      });
      body.stream.pipe(parser);
    });
    for (const file of files) {
      const verdict = await checkContent(file.tmp, file.size, file.name);
      if (!verdict.ok) throw new AppError('file-refused', { file: file.name, reason: verdict.reason });
      file.mimetype = verdict.mimetype;
    }
  } catch (error) {
    await discard();
    throw error;
  }
  return { fields, files, discard };
}
