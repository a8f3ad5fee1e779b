/** Time source, injectable so tests can move time (ban expiry, activity coalescing) without waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
