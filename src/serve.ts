import module from 'node:module';
import { createApp, type App } from './app.ts';
import { loadProcessConfig } from './config.ts';
import { CONSOLE_PATH } from './http/admin-console.ts';
import { createInitialKey } from './modules/auth/index.ts';

/**
 * Graceful shutdown (docs/deploy.md): stop accepting (`/ready` answers 503, new requests on open
 * connections get 503), let the requests in flight finish for up to `shutdownTimeoutMs`, then close
 * what is left, stop the background jobs, flush coalesced writes and close the database. Exits 0
 * when every request in flight finished, 1 when some had to be cut; a second signal exits at once.
 */
async function shutdown(app: App, timeoutMs: number, signal: string): Promise<number> {
  app.server.log.info({ signal, timeoutMs }, 'shutting down');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)));
  const closing = app.close();
  const cut = await Promise.race([closing.then(() => false), timedOut]);
  clearTimeout(timer);
  if (cut) {
    app.server.log.warn('requests still in flight at the shutdown timeout: closing their connections');
    app.server.server.closeAllConnections();
    await closing;
  }
  app.server.log.info('stopped');
  return cut ? 1 : 0;
}

/** The service process (after src/main.ts): config -> app -> listen; graceful shutdown on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadProcessConfig();
  const app = await createApp({ config });
  const first = app.firstRun ? await createInitialKey(app.ctx) : undefined;
  let address: string;
  try {
    address = await app.server.listen({ port: config.port, host: config.host });
  } catch (error) {
    // The token exists only here: shown even when the port is taken, or it would be lost.
    if (first) console.log(firstKeyMessage(first));
    throw error;
  }
  // The compile cache (src/main.ts) gets what the start compiled now, not only at exit: another
  // instance started meanwhile starts warm (about 20 MiB less at rest, docs/performance.md).
  module.flushCompileCache?.();
  const consoleUrl = consoleAddress(address);
  console.log(first ? firstKeyMessage(first, consoleUrl) : `Admin console: ${consoleUrl}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    shutdown(app, config.shutdownTimeoutMs, signal).then(
      (code) => process.exit(code),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** The console's address to open in a browser: an all-interfaces address is reached as localhost. */
function consoleAddress(listening: string): string {
  const url = new URL(CONSOLE_PATH, listening);
  if (url.hostname === '[::]' || url.hostname === '0.0.0.0') url.hostname = 'localhost';
  return url.href;
}

/** Printed once, on the console only: the database keeps a digest, never the token. */
function firstKeyMessage({ id, token }: { id: number; token: string }, consoleUrl?: string): string {
  return (
    `\nNew installation: the API is enabled and a full-access key was created (id ${id}).\n` +
    `  X-Auth-Token: ${token}\n` +
    `Store it now; it cannot be shown again. More keys: npm run cli -- apikey create --help\n` +
    (consoleUrl ? `Admin console: ${consoleUrl} (sign in with this key)\n` : '')
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
