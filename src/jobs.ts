import type { AppContext } from './app-context.ts';
import type { Job } from './module.ts';

export interface Jobs {
  /** Runs a job now (waiting for a run already under way first). */
  run(name: string): Promise<void>;
  /** Stops the timers and waits for the runs under way. */
  stop(): Promise<void>;
}

/**
 * Runs each job at start and then every `intervalMs` (0 = only when asked), never two runs of one
 * job at once. A failing run is logged and the job goes on.
 */
export function startJobs(ctx: AppContext, jobs: Job[]): Jobs {
  const running = new Map<string, Promise<void>>();
  const timers: NodeJS.Timeout[] = [];
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const run = (job: Job): Promise<void> => {
    const current = running.get(job.name);
    if (current) return current;
    const next = job.run(ctx)
      .then(() => undefined, (error: unknown) => ctx.log.error({ err: error, job: job.name }, 'background job failed'))
      .finally(() => running.delete(job.name));
    running.set(job.name, next);
    return next;
  };
  for (const job of jobs) {
    void run(job);
    const every = job.intervalMs(ctx);
    if (every > 0) {
      const timer = setInterval(() => void run(job), every);
      timer.unref();
      timers.push(timer);
    }
  }
  return {
    async run(name) {
      const job = byName.get(name);
      if (!job) throw new Error(`no job named ${name}`);
      await running.get(name);
      await run(job);
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
