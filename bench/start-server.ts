import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface Server {
  port: number;
  /** The token of the app's key restricted to reading customers. */
  restrictedKey?: string;
  /** The app's database size, the seconds its data took to write, the 12-month sales report's rate (bench/servers.ts). */
  sizeMib?: number;
  seedSeconds?: number;
  reportPerSecond?: number;
  child: ChildProcess;
}

/** The Node flags `npm start` gives the service (package.json), so that servers are measured as they run in production. */
export function startFlags(): string[] {
  const scripts = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const flags = /\bnode((?: --\S+)*) src\/main\.ts\b/.exec(scripts.start ?? '');
  if (!flags) throw new Error('package.json: the start script does not run `node [flags] src/main.ts`');
  return flags[1]!.split(' ').filter(Boolean);
}

/** Starts `node bench/servers.ts <args>` and resolves once it prints the port it listens on. */
export async function startServer(args: string[]): Promise<Server> {
  // With Node's compile cache (src/main.ts) and flags, as `npm start` runs.
  const env = { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'node-compile-cache') };
  const child = spawn(process.execPath, [...startFlags(), new URL('./servers.ts', import.meta.url).pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} server exited with ${code}`)));
  });
  return { ...JSON.parse(line), child };
}

/** The server's peak resident memory so far, in MiB (Linux: VmHWM; elsewhere 0, unknown). */
export function peakRssMib(server: Server): number {
  try {
    const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    const kib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    return Math.round(kib / 1024);
  } catch {
    return 0;
  }
}
