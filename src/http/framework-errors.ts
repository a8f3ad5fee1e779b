import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.ts';

/**
 * Requests that never reach a route still get the documented error shape and the CORS header:
 * a malformed HTTP message (answered on the socket: there is no request object) and a path that
 * cannot be decoded.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request-timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? 'headers-too-large' : 'invalid-request';
  const failure = new AppError(code);
  const body = JSON.stringify(failure.body());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${failure.status} ${http.STATUS_CODES[failure.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Access-Control-Allow-Origin: *\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Fastify's routing-time errors (an undecodable path, an over-long parameter). */
export function frameworkErrors(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const failure = new AppError('invalid-url');
  void reply.code(failure.status).header('Access-Control-Allow-Origin', '*').send(failure.body());
}
