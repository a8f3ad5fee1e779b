import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `check` passes (other instances see changes within STATE_REFRESH_MS; a background
 * job or a page fills something in a moment later), else throws its last failure. The default
 * timeout is for a loaded machine (two test runs on two CPUs): a check that passes returns at once.
 */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
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
