import path from 'node:path';
import { fileURLToPath } from 'node:url';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';

/** Where the console is served: outside `/api/3`, so no key is needed to load the page itself. */
export const CONSOLE_PATH = '/admin/';

/** The console's files, in the repository (no build step: docs/decisions/0006-admin-console.md). */
export const CONSOLE_ROOT = fileURLToPath(new URL('../../admin/', import.meta.url));

/** Preact, its hooks and htm in one ES module, from the npm registry and served from here. */
export const VIEW_LIBRARY = path.join(path.dirname(fileURLToPath(import.meta.resolve('htm/preact/standalone'))), 'standalone.module.js');

/**
 * The console's Content-Security-Policy: scripts, styles and requests to this origin only, no
 * inline script or style, no plugins, never framed, forms never posted anywhere (the console
 * sends JSON through `fetch`). docs/admin.md explains each directive.
 */
export const CONSOLE_CSP = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
  'object-src': ["'none'"],
};

/**
 * Serves the admin console (docs/admin.md): `/admin/` and its files with ETag and Last-Modified,
 * `Cache-Control: no-cache` so that a browser revalidates each file with one cheap 304 and never
 * runs a stale one after an upgrade; strict security headers on every answer under `/admin`
 * (errors included). The routes are outside the API pipeline (`operational`) and left out of the
 * OpenAPI description (`console`).
 */
export async function registerAdminConsole(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: CONSOLE_CSP },
      referrerPolicy: { policy: 'no-referrer' },
      frameguard: { action: 'deny' },
      // Served over plain HTTP on a local port as often as behind TLS: HSTS belongs to the proxy.
      strictTransportSecurity: false,
    });
    await scope.register(fastifyStatic, { root: CONSOLE_ROOT, serve: false, cacheControl: false, etag: true, lastModified: true, dotfiles: 'deny' });
    // `send` answers a name it will not serve (`..`, a dot file, a NUL) with 403: to a client that is
    // a file that does not exist, like any other.
    scope.setErrorHandler(async (error: FastifyError, _request, reply) => {
      if (error.statusCode === 403 || error.statusCode === 404) return reply.callNotFound();
      throw error;
    });
    const route = { config: { operational: true, console: true } };
    const send = (reply: FastifyReply, file: string, root?: string) => reply.header('Cache-Control', 'no-cache').sendFile(file, root ?? CONSOLE_ROOT);
    scope.get(CONSOLE_PATH, route, (_request, reply) => send(reply, 'index.html'));
    scope.get(`${CONSOLE_PATH}vendor/htm-preact.js`, route, (_request, reply) => send(reply, path.basename(VIEW_LIBRARY), path.dirname(VIEW_LIBRARY)));
    // `send` resolves the name inside the root and refuses `..` and dot files.
    scope.get(`${CONSOLE_PATH}*`, route, (request, reply) => send(reply, (request.params as { '*': string })['*']));
  });
}
