import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until `check` passes (other instances see changes within STATE_REFRESH_MS), else throws its last failure. */
export async function eventually(check: () => Promise<void>, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - start > timeoutMs) throw error;
      await sleep(20);
    }
  }
}
