import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS library loaded on its first use instead of at start. For the heavy ones most
 * processes never need or need late (the other engines' drivers, PDF, spreadsheets, XML, image
 * processing): each costs 10-35 MiB of resident memory once loaded, about half of the service's
 * footprint at start (docs/benchmarks.md). Loading is synchronous, so callers keep their shape.
 */
export function lazyLibrary<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
