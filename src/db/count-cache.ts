import type { Model } from '../models/define-model.ts';
import type { WriteTracker } from './write-tracker.ts';

interface Entry {
  total: number;
  stamp: number;
  at: number;
}

/**
 * The totals of list queries (`X-Total-Count`), per model and filter, kept while nothing that could
 * change them was written: a count is reused until this instance writes the model's table or a
 * table it references (an update or delete there cascades into it), and never longer than
 * `maxAgeMs` (what other instances write is seen within that). docs/query-syntax.md says so.
 */
export class CountCache {
  readonly #writes: WriteTracker;
  readonly #byTable: (table: string) => Model | undefined;
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  readonly #capacity: number;
  readonly #entries = new Map<string, Entry>();
  readonly #upstream = new WeakMap<Model, string[]>();

  constructor(options: { writes: WriteTracker; byTable: (table: string) => Model | undefined; now: () => number; maxAgeMs: number; capacity?: number }) {
    this.#writes = options.writes;
    this.#byTable = options.byTable;
    this.#now = options.now;
    this.#maxAgeMs = options.maxAgeMs;
    this.#capacity = options.capacity ?? 2000;
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

  get(model: Model, key: string): number | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.stamp !== this.stamp(model) || this.#now() - entry.at > this.#maxAgeMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.total;
  }

  /** Keeps a total computed from a read that began at `stamp` (taken before the count ran). */
  set(model: Model, key: string, total: number, stamp: number, at: number): void {
    if (stamp !== this.stamp(model)) return;
    this.#entries.delete(key);
    this.#entries.set(key, { total, stamp, at });
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
