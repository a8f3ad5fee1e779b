import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * CPU time from /proc (Linux), as docs/performance.md measures it: what a server process and the
 * database server's processes spent over a run, per request. Elsewhere every reading is 0 and the
 * bench reports no CPU figures.
 */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** User and system CPU seconds the process has used so far (0 when it cannot be read). */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command's name (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** The processes of this machine's database server for an engine (PostgreSQL's backends, MariaDB's one process). */
function databasePids(engine: string): number[] {
  const names = engine === 'postgres' ? ['postgres'] : engine === 'mysql' ? ['mariadbd', 'mysqld'] : [];
  if (!names.length || !fs.existsSync('/proc')) return [];
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (names.includes(fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** CPU seconds so far of a server process and of its engine's database server, to subtract from a later reading. */
export interface CpuReading {
  service: number;
  database: number;
  /** The database's processes as read (a backend started later counts from zero). */
  byPid: Map<number, number>;
}

export function readCpu(pid: number | undefined, engine: string): CpuReading {
  const byPid = new Map(databasePids(engine).map((id) => [id, cpuSeconds(id)]));
  return { service: pid === undefined ? 0 : cpuSeconds(pid), database: [...byPid.values()].reduce((sum, value) => sum + value, 0), byPid };
}

/** Milliseconds of CPU per request between two readings: the service's, and the database server's (undefined for SQLite, in the service). */
export function cpuPerRequest(before: CpuReading, after: CpuReading, requests: number, engine: string): { service: number; database?: number } {
  if (requests <= 0) return { service: 0 };
  let database = 0;
  for (const [id, seconds] of after.byPid) database += seconds - (before.byPid.get(id) ?? 0);
  return { service: ((after.service - before.service) * 1000) / requests, ...(engine === 'sqlite' ? {} : { database: (database * 1000) / requests }) };
}
