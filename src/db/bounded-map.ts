/**
 * A map that holds at most `capacity` entries, dropping the least recently used first: what the
 * caches keyed by text from outside (SQL, shapes, list filters) use so that ad-hoc keys cannot grow
 * memory forever. `get` and `set` both count as a use (a Map keeps insertion order, so a used entry
 * is moved to the end and the first one is the oldest).
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The entry, marked as just used; `undefined` when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined || this.#entries.has(key)) {
      this.#entries.delete(key);
      this.#entries.set(key, value as V);
    }
    return value;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  /** The entries, least recently used first (not a use). */
  entries(): IterableIterator<[K, V]> {
    return this.#entries.entries();
  }

  get size(): number {
    return this.#entries.size;
  }
}
