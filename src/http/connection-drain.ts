import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long an idle connection is kept open after a shutdown began, for a request already on its way. */
export const DRAIN_GRACE_MS = 1_000;

/**
 * The connections of a closing server end only once idle after their last answer (docs/deploy.md):
 * a connection busy with a request ends after its answer (which says `Connection: close`); an idle
 * one is kept for `DRAIN_GRACE_MS`, so that a request the client already sent (its bytes not yet
 * read while the process was busy) is answered rather than cut, then ended. Node's own close
 * would end every idle connection at once, resetting such requests (ECONNRESET at the client).
 */
export function connectionDrain(server: Server): { start(graceMs?: number): void } {
  const busy = new Map<Socket, number>();
  let draining = false;
  let grace = DRAIN_GRACE_MS;
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
    // Opened while draining (the listener still accepts for a moment): ended too once idle.
    if (draining) endWhenIdle(socket, grace);
  });
  server.on('request', (request, response) => {
    const socket = request.socket as Socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.once('close', () => {
      busy.set(socket, Math.max(0, (busy.get(socket) ?? 1) - 1));
      // Answered while draining: ended by its `Connection: close`, or else once idle.
      if (draining) endWhenIdle(socket, grace);
    });
  });
  /** Ends `socket` if it stayed idle: after the grace, and after one more round of reading what arrived meanwhile. */
  const endWhenIdle = (socket: Socket, graceMs: number) => {
    const timer = setTimeout(() => setImmediate(() => {
      if (socket.destroyed) return;
      if ((busy.get(socket) ?? 0) > 0) return; // its answer ends it (Connection: close)
      socket.end();
      setTimeout(() => socket.destroy(), graceMs).unref();
    }), graceMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
  return {
    start(graceMs = DRAIN_GRACE_MS) {
      if (draining) return;
      draining = true;
      grace = graceMs;
      // The idle connections are this drain's to end, not Node's close (which ends them at once).
      server.closeIdleConnections = () => {};
      for (const socket of busy.keys()) endWhenIdle(socket, graceMs);
    },
  };
}
