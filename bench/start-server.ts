import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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
  /** The database the app server made (to open it again in another process). */
  databaseUrl?: string;
  child: ChildProcess;
}

/**
 * Where processes run: with two CPUs or more and `taskset` (util-linux), the servers on CPU 0 and
 * the load generator (the bench's own process, which runs autocannon) on CPU 1, so that neither
 * takes the other's time; otherwise they share, and the bench says so.
 */
export const pinning = ((): { servers: string[]; note: string } => {
  const cpus = os.availableParallelism();
  const taskset = spawnSync('taskset', ['--version']).status === 0;
  if (cpus < 2 || !taskset || process.env.BENCH_PIN === '0') {
    return { servers: [], note: `servers and load generator share the CPUs (${cpus < 2 ? 'one CPU' : !taskset ? 'no taskset' : 'BENCH_PIN=0'})` };
  }
  spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  return { servers: ['taskset', '-c', '0'], note: 'servers pinned to CPU 0, the load generator to CPU 1' };
})();

/** The Node flags `npm start` gives the service (package.json), so that servers are measured as they run in production. */
export function startFlags(): string[] {
  const scripts = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const flags = /\bnode((?: --\S+)*) src\/main\.ts\b/.exec(scripts.start ?? '');
  if (!flags) throw new Error('package.json: the start script does not run `node [flags] src/main.ts`');
  return flags[1]!.split(' ').filter(Boolean);
}

/**
 * Starts `node bench/servers.ts <args>` and resolves once it prints the port it listens on; from
 * another checkout of the service when `root` is given (the baseline commit's worktree).
 */
export async function startServer(args: string[], root?: string): Promise<Server> {
  // With Node's compile cache (src/main.ts) and flags, as `npm start` runs.
  const env = { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'node-compile-cache') };
  const script = root ? path.join(root, 'bench', 'servers.ts') : new URL('./servers.ts', import.meta.url).pathname;
  const command = [...pinning.servers, process.execPath, ...startFlags(), script, ...args];
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} server exited with ${code}`)));
  });
  return { ...JSON.parse(line), child };
}

function statusMib(server: Server, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return Math.round(kib / 1024);
  } catch {
    return 0;
  }
}

/** The server's peak resident memory so far, in MiB (Linux: VmHWM; elsewhere 0, unknown). */
export const peakRssMib = (server: Server): number => statusMib(server, 'VmHWM');
/** The server's resident memory now, in MiB (Linux: VmRSS; elsewhere 0, unknown). */
export const rssMib = (server: Server): number => statusMib(server, 'VmRSS');
