import type { Model } from '../models/define-model.ts';
import type { WriteTracker } from './write-tracker.ts';
import { activePin } from './pinned-transaction.ts';
import { BoundedMap } from './bounded-map.ts';

interface Entry {
  total: number;
  stamp: number;
  at: number;
  /** How long the count took (ms): only a slow one is answered while it is recounted. */
  cost: number;
}

/** A count that took this long (ms) or more is answered stale while it is recounted. */
const SLOW_COUNT_MS = 25;
/** A count is kept at least this many times as long as it took: recounts take at most 1/20 of the database. */
const COST_FACTOR = 20;

interface Flight {
  stamp: number;
  total: Promise<number>;
}

/**
 * The totals of list queries (`X-Total-Count`), per model and filter, kept while nothing that could
 * change them was written: a count is reused until this instance writes the model's table or a
 * table it references (an update or delete there cascades into it); what other instances write is
 * seen by a recount once the count is `maxAgeMs` old, or COST_FACTOR times as long as it took to
 * count when that is longer. docs/query-syntax.md says so.
 *
 * Counting a large table costs far more than a page (a filter no index serves reads every row), so:
 * - requests that need the same count at once share one count (a burst of 50 does not count 50 times);
 * - past `maxAgeMs`, a slow count (SLOW_COUNT_MS or more) that this instance's writes have not
 *   touched is still answered while one recount runs in the background (stale while
 *   revalidating), up to `staleLimit` x `maxAgeMs`; a quick one is recounted before answering,
 *   and after its own write an instance always waits for the new count.
 */
export class CountCache {
  readonly #writes: WriteTracker;
  readonly #byTable: (table: string) => Model | undefined;
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  readonly #staleMs: number;
  readonly #entries: BoundedMap<string, Entry>;
  readonly #flights = new Map<string, Flight>();
  readonly #upstream = new WeakMap<Model, string[]>();
  readonly #report: (error: unknown) => void;
  readonly #elapsed: () => number;

  constructor(options: {
    writes: WriteTracker;
    byTable: (table: string) => Model | undefined;
    now: () => number;
    /** A monotonic clock (ms) that times the counts (default `performance.now`). */
    elapsed?: () => number;
    maxAgeMs: number;
    /** How many times `maxAgeMs` a count may be answered while its recount runs (default 30). */
    staleLimit?: number;
    capacity?: number;
    /** Where a failed background recount goes (the next request past the limit recounts itself). */
    report?: (error: unknown) => void;
  }) {
    this.#writes = options.writes;
    this.#elapsed = options.elapsed ?? (() => performance.now());
    this.#byTable = options.byTable;
    this.#now = options.now;
    this.#maxAgeMs = options.maxAgeMs;
    this.#staleMs = options.maxAgeMs * (options.staleLimit ?? 30);
    this.#entries = new BoundedMap(options.capacity ?? 2000);
    this.#report = options.report ?? (() => {});
  }

  /** The model's table and every table it references, directly or through others. */
  #tables(model: Model): string[] {
    let tables = this.#upstream.get(model);
    if (!tables) {
      const seen = new Set<string>([model.table]);
      const visit = (current: Model) => {
        for (const field of Object.values(current.fields)) {
          const table = field.references?.table;
          if (!table || seen.has(table)) continue;
          seen.add(table);
          const referenced = this.#byTable(table);
          if (referenced) visit(referenced);
        }
      };
      visit(model);
      tables = [...seen];
      this.#upstream.set(model, tables);
    }
    return tables;
  }

  /** A number that moves whenever this instance writes one of the model's tables (generations only grow). */
  stamp(model: Model): number {
    let sum = 0;
    for (const table of this.#tables(model)) sum += this.#writes.generation(table);
    return sum;
  }

  /**
   * The total for `key`, from the cache or from `count` (which must read the database only after
   * it is called: the stamp is taken before). `background` says whether a recount may run after
   * the caller has its answer (not inside a transaction, whose connection it cannot take).
   */
  async total(model: Model, key: string, count: () => Promise<number>, background = true): Promise<number> {
    // A pinned flow (an atomic batch) counts what it sees, its own uncommitted writes included: never kept.
    if (activePin()) return count();
    const stamp = this.stamp(model);
    const entry = this.#entries.get(key);
    if (entry && entry.stamp === stamp) {
      const age = this.#now() - entry.at;
      const fresh = Math.max(this.#maxAgeMs, entry.cost * COST_FACTOR);
      if (age <= fresh) return entry.total;
      if (background && entry.cost >= SLOW_COUNT_MS && age <= fresh + this.#staleMs) {
        if (!this.#flights.has(key)) this.#fly(model, key, stamp, count).catch(this.#report);
        return entry.total;
      }
    }
    const flight = this.#flights.get(key);
    if (flight && flight.stamp === stamp) return flight.total;
    return this.#fly(model, key, stamp, count);
  }

  #fly(model: Model, key: string, stamp: number, count: () => Promise<number>): Promise<number> {
    const at = this.#now();
    const started = this.#elapsed();
    const total = count().then((value) => {
      this.#set(model, key, { total: value, stamp, at, cost: this.#elapsed() - started });
      return value;
    });
    const flight = { stamp, total };
    this.#flights.set(key, flight);
    const land = () => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
    };
    total.then(land, land);
    return total;
  }

  /** Keeps a total computed from a read that began at `stamp` (taken before the count ran). */
  #set(model: Model, key: string, entry: Entry): void {
    if (entry.stamp !== this.stamp(model)) return;
    this.#entries.set(key, entry);
  }
}
