/** Time source, injectable so tests can move time (ban expiry, activity coalescing) without waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A business day and time: `YYYY-MM-DD` and `HH:MM:SS`, on the installation's wall clock. */
export interface BusinessDay {
  date: string;
  time: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
    });
    formats.set(zone, format);
  }
  return format;
}

/** True for a time zone name this runtime knows (`Europe/Madrid`, `UTC` ...). */
export function isTimeZone(zone: string): boolean {
  try {
    formatIn(zone);
    return true;
  } catch {
    return false;
  }
}

/** The last answer of `dayIn` per zone, by whole second: a busy installation asks many times a second, and formatting costs. */
const lastDay = new Map<string, { second: number; day: BusinessDay }>();

/** The wall-clock day and time at instant `ms` in `zone` (a frozen object: callers share it within its second). */
export function dayIn(ms: number, zone: string): BusinessDay {
  const second = Math.floor(ms / 1000);
  const last = lastDay.get(zone);
  if (last?.second === second) return last.day;
  const day = Object.freeze(formatDay(ms, zone));
  // One entry per zone asked (the installation's, and the few a test or a request names).
  if (lastDay.size >= 16 && !last) lastDay.clear();
  lastDay.set(zone, { second, day });
  return day;
}

function formatDay(ms: number, zone: string): BusinessDay {
  const parts: Record<string, string> = {};
  for (const part of formatIn(zone).formatToParts(ms)) parts[part.type] = part.value;
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}:${parts.second}` };
}

/**
 * The one clock of an app: instants from its source (tests inject one), business dates and times
 * on the installation's wall clock (`zone`: the `timezone` setting, or TIME_ZONE, which wins), and
 * technical timestamps (creation dates, activity) in UTC.
 */
export class BusinessClock implements Clock {
  readonly #source: Clock;
  zone: string;

  constructor(source: Clock = systemClock, zone = 'UTC') {
    this.#source = source;
    this.zone = zone;
  }

  now(): number {
    return this.#source.now();
  }

  /** Today's date and the time of day in the installation's zone. */
  today(): BusinessDay {
    return dayIn(this.now(), this.zone);
  }

  /** Now (or `offsetMs` from now: a lease's end, a retry's time) as `YYYY-MM-DD HH:MM:SS` in UTC. */
  timestamp(offsetMs = 0): string {
    return timestampOf(this.now() + offsetMs);
  }
}

/** A moment (milliseconds since the epoch) as the timestamp columns hold it: `YYYY-MM-DD HH:MM:SS`, UTC. */
export function timestampOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** A business date (`YYYY-MM-DD`) `days` calendar days later (earlier when negative). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
