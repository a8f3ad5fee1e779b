import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './free-port.ts';

/**
 * The service as a process of its own (`src/main.ts`), for tests that kill it (SIGKILL) and start
 * it again on the same database: `start` waits for it to answer, `call` speaks JSON to it with the
 * key it was given, `kill` ends it at once.
 */
const root = path.resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; total: number }>;
}

export async function callService(port: number, key: string, method: string, url: string, body?: unknown): Promise<{ status: number; body: any; total: number }> {
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: { 'x-auth-token': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), total: Number(response.headers.get('x-total-count')) };
}

export async function startService(url: string, dataDir: string, key: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, API_KEY: key, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
    stdio: 'ignore',
  });
  const call = (method: string, path: string, body?: unknown) => callService(port, key, method, path, body);
  // A deadline, not a count of tries: a loaded machine can take long to start the process.
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await call('GET', '/api/3/')).status === 200) return { child, port, call };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error('the service did not start');
}

/** Kills the process (SIGKILL) and waits for it to be gone; one already gone is left alone. */
export function killService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
