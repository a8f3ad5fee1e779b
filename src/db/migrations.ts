import type { Migration } from './schema-sync.ts';

/**
 * Versioned migrations for changes the registry cannot derive (renames, backfills). Tables and
 * columns themselves come from the model registry (schema-sync.ts). Append only; never edit one
 * that has shipped.
 */
export const MIGRATIONS: Migration[] = [];
