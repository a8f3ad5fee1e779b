/**
 * A throwaway PostgreSQL primary and streaming replica, made with the engine's own tools
 * (`initdb`, `pg_ctl`, `pg_basebackup -R`) on spare ports under a temporary folder, run as the
 * `postgres` user when started by root. For the read-replica tests and for trying
 * DATABASE_READ_URL by hand (the machine's main cluster does not allow replication connections):
 *
 *   node scripts/pg-replica-pair.ts start     prints the primary's and the replica's URLs
 *   node scripts/pg-replica-pair.ts stop DIR  stops both and removes the folder
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/free-port.ts';

export interface ReplicaPair {
  dir: string;
  primaryUrl: string;
  replicaUrl: string;
  /** Runs a PostgreSQL tool as the clusters' owner. */
  run(tool: string, args: string[]): string;
  stopReplica(): void;
  startReplica(): void;
  stop(): void;
}

/** The folder of PostgreSQL's server tools, or undefined when they are not installed. */
export function postgresBinDir(): string | undefined {
  const candidates = [
    spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' }).stdout?.trim(),
    ...(fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort().reverse().map((version) => `/usr/lib/postgresql/${version}/bin`) : []),
  ].filter(Boolean) as string[];
  return candidates.find((dir) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((tool) => fs.existsSync(path.join(dir, tool))));
}

export async function startReplicaPair(): Promise<ReplicaPair> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server tools (initdb, pg_ctl, pg_basebackup) not found');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-replica-pair-'));
  fs.chmodSync(dir, 0o755);
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const run = (tool: string, args: string[]) => {
    const command = path.join(bin, tool);
    return asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8', cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
      : execFileSync(command, args, { encoding: 'utf8', cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primary = path.join(dir, 'primary');
  const replica = path.join(dir, 'replica');
  const options = (port: number) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  const ctl = (data: string, port: number, action: 'start' | 'stop') =>
    action === 'start' ? run('pg_ctl', ['-D', data, '-l', `${data}.log`, '-o', options(port), '-w', 'start']) : run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  try {
    run('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '--no-sync']);
    fs.appendFileSync(path.join(primary, 'postgresql.conf'), '\nwal_level = replica\nmax_wal_senders = 4\nfsync = off\n');
    fs.appendFileSync(path.join(primary, 'pg_hba.conf'), '\nhost replication postgres 127.0.0.1/32 trust\n');
    ctl(primary, primaryPort, 'start');
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replica, '-R', '-X', 'stream']);
    ctl(replica, replicaPort, 'start');
  } catch (error) {
    spawnSync('runuser', ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), '-D', primary, '-m', 'immediate', 'stop']);
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/postgres`,
    run,
    stopReplica: () => void ctl(replica, replicaPort, 'stop'),
    startReplica: () => void ctl(replica, replicaPort, 'start'),
    stop() {
      for (const data of [replica, primary]) {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } catch {
          // already stopped
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (import.meta.main) {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    const pair = await startReplicaPair();
    console.log(`primary: ${pair.primaryUrl}\nreplica: ${pair.replicaUrl}\nstop with: node scripts/pg-replica-pair.ts stop ${pair.dir}`);
  } else if (command === 'stop' && dir && path.basename(dir).startsWith('pg-replica-pair-')) {
    const bin = postgresBinDir()!;
    for (const data of ['replica', 'primary']) {
      const args = ['-D', path.join(dir, data), '-m', 'fast', '-w', 'stop'];
      spawnSync(process.getuid?.() === 0 ? 'runuser' : path.join(bin, 'pg_ctl'), process.getuid?.() === 0 ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), ...args] : args, { stdio: 'inherit' });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  } else {
    console.error('usage: node scripts/pg-replica-pair.ts start | stop <folder printed by start>');
    process.exit(2);
  }
}
