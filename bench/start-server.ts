import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Starts `node bench/servers.ts <kind>` and resolves once it prints the port it listens on. */
export async function startServer(kind: 'baseline' | 'app'): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [new URL('./servers.ts', import.meta.url).pathname, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { port: JSON.parse(line).port, child };
}
