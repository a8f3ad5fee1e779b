import { createApp } from './app.ts';
import { loadProcessConfig } from './config.ts';
import { createInitialKey } from './modules/auth/index.ts';

/** Process entry: config -> app -> listen; graceful shutdown on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadProcessConfig();
  const app = await createApp({ config });
  if (app.firstRun) {
    const { id, token } = await createInitialKey(app.ctx);
    // Printed once, on the console only: the database keeps a digest, never the token.
    console.log(
      `\nNew installation: the API is enabled and a full-access key was created (id ${id}).\n` +
        `  X-Auth-Token: ${token}\n` +
        `Store it now; it cannot be shown again. More keys: npm run cli -- apikey create --help\n`,
    );
  }
  const stop = async (signal: string) => {
    app.server.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.server.listen({ port: config.port, host: config.host });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
