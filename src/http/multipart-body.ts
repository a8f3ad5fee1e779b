import type { FastifyInstance } from 'fastify';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import { AppError } from '../errors.ts';
import { MultipartStream } from './multipart-stream.ts';

export interface MultipartLimits {
  /** Largest request, counted in bytes as they arrive (framing included). */
  bodyLimit: number;
  /** Largest number of parts (fields and files). */
  maxParts: number;
}

/**
 * `multipart/form-data` bodies with the meaning of a form: fields are strings (a repeated name
 * gives an array), files are Buffers. The whole request is limited while it streams: past
 * `bodyLimit` the parser stops reading and the request fails with 413 at once, so a huge upload
 * costs neither memory nor the time to receive it. A body without a boundary, or cut short, is a
 * 400. Field names never reach an object prototype. Routes configured with `streamsFiles` get a
 * `MultipartStream` instead, unread.
 */
export function registerMultipartBody(app: FastifyInstance, limits: MultipartLimits): void {
  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    // Upload routes read the stream themselves, under their own limits.
    if (request.routeOptions.config.streamsFiles) return done(null, new MultipartStream(payload, request.headers));
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.bodyLimit) return done(new AppError('body-too-large'), undefined);
    let parser: BusboyInstance;
    try {
      parser = Busboy({
        headers: request.headers as BusboyHeaders,
        limits: { fieldSize: limits.bodyLimit, fileSize: limits.bodyLimit, parts: limits.maxParts, fields: limits.maxParts, files: limits.maxParts },
      });
    } catch {
      return done(new AppError('invalid-body', { reason: 'multipart-boundary-missing' }), undefined);
    }
    const fields: Record<string, unknown> = Object.create(null);
    const add = (name: string, value: unknown) => {
      const previous = fields[name];
      fields[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
    };
    let received = 0;
    let settled = false;
    const finish = (error: AppError | undefined) => {
      if (settled) return;
      settled = true;
      payload.removeListener('data', count);
      if (error) {
        payload.unpipe(parser);
        // Stop reading what is left of the body; the error response closes the connection.
        payload.pause();
        done(error, undefined);
      } else done(null, fields);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bodyLimit) finish(new AppError('body-too-large'));
    };
    payload.on('data', count);
    parser.on('field', (name: string, value: string) => add(name, value));
    parser.on('file', (name: string, file: NodeJS.ReadableStream) => {
      const chunks: Buffer[] = [];
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
      file.on('end', () => add(name, Buffer.concat(chunks)));
      // A body cut short inside a file fails the file stream too; the parser's own 'error' answers
      // the request. Without a listener the stream's error would end the process.
      file.on('error', () => finish(new AppError('invalid-body', { reason: 'multipart-malformed' })));
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit']) parser.on(limit, () => finish(new AppError('body-too-large', { reason: 'too-many-parts' })));
    parser.on('error', () => finish(new AppError('invalid-body', { reason: 'multipart-malformed' })));
    parser.on('finish', () => finish(undefined));
    payload.on('error', () => finish(new AppError('invalid-body', { reason: 'body-incomplete' })));
    payload.pipe(parser);
  });
}
