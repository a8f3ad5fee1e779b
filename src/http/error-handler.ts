import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, type ErrorCode } from '../errors.ts';
import { translateDbError } from '../db/translate-error.ts';
import { lingerAfterAnswer } from './linger.ts';
import { isLegacy } from './profile.ts';
import { legacyModelError } from './profile-serializer.ts';

/** Fastify's own request errors, by code, in our vocabulary. */
const FRAMEWORK_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body-too-large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid-body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'no-data',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid-json',
  FST_REQ_FILE_TOO_LARGE: 'body-too-large',
  FST_PARTS_LIMIT: 'body-too-large',
  FST_FILES_LIMIT: 'body-too-large',
  FST_FIELDS_LIMIT: 'body-too-large',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'invalid-body',
};

function toAppError(error: FastifyError): AppError | undefined {
  if (error instanceof AppError) return error;
  // A constraint a use case hit through a raw statement is still the client's conflict, not a 500.
  const fromDriver = translateDbError(error, 'update');
  if (fromDriver) return fromDriver;
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) return new AppError(known);
  if (error instanceof SyntaxError && error.statusCode === 400) return new AppError('invalid-json');
  if (error.statusCode === 413) return new AppError('body-too-large');
  if (error.statusCode === 415) return new AppError('unsupported-media-type');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return new AppError('invalid-body');
  return undefined;
}

/** The one place where failures become HTTP responses. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error);
    if (!appError) {
      request.log.error({ err: error }, 'unhandled error');
      const internal = new AppError('internal-error', { requestId: request.id });
      return reply.code(internal.status).send(internal.body());
    }
    if (appError.status >= 500) request.log.error({ err: appError.cause ?? appError }, appError.code);
    // Model resources answer `facturascripts` keys as the established system does.
    const legacy = isLegacy(request) && request.routeOptions.config?.family === 'model' ? legacyModelError(appError) : undefined;
    if (legacy) return reply.code(legacy.status).send(legacy.body);
    if (appError.details?.retryAfter !== undefined) reply.header('Retry-After', String(appError.details.retryAfter));
    if (appError.code === 'precondition-failed' && typeof appError.details?.etag === 'string') reply.header('ETag', appError.details.etag);
    // The rest of an oversized body is not worth keeping: the connection ends with the answer,
    // once what the client is still sending has been read and thrown away (linger.ts).
    if (appError.status === 413) {
      reply.header('Connection', 'close');
      lingerAfterAnswer(request.raw);
    }
    if (appError.code === 'method-not-allowed' && appError.details?.allow) {
      reply.header('Allow', String(appError.details.allow));
      return reply.code(appError.status).send({ status: 'error', message: appError.code });
    }
    return reply.code(appError.status).send(appError.body());
  });
}
