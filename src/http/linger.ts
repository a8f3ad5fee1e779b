import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

/**
 * What a refused request may still send after its answer: read and thrown away up to these bounds,
 * then the connection is cut.
 */
export const LINGER_LIMITS = { bytes: 128 * 1_048_576, ms: 15_000 };

/**
 * A "lingering close" (as web servers do it) for an answer sent before its request's body was
 * read (413): the answer goes out and the sending side of the connection is closed, but what the
 * client is still sending is read and discarded until its body ends, so that the client reads its
 * answer instead of failing to write (EPIPE, ECONNRESET). A client that keeps sending past the
 * bounds is cut off. Nothing read is kept.
 */
export function lingerAfterAnswer(request: IncomingMessage, limits = LINGER_LIMITS): void {
  const socket = request.socket;
  // An injected request (tests) has no real connection to keep open.
  if (!(socket instanceof Socket) || request.complete || socket.destroyed) return;
  // Node ends a `Connection: close` answer with destroySoon(), which also stops reading: half-close instead.
  socket.destroySoon = () => {
    socket.end();
  };
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, limits.ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  let received = 0;
  request.unpipe();
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.bytes) cut();
  });
  request.once('end', () => setImmediate(cut));
  request.once('error', cut);
  request.resume();
}
