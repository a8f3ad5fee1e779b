import type { Migration } from './migrator.ts';

/**
 * The installation's versioned migrations, for changes the registry cannot derive: renames and
 * conversions (`phase: 'before-sync'`), backfills (after-sync, the default). Tables, columns, safe
 * type changes, indexes and keys themselves come from the model registry (schema-sync.ts). The
 * runner's guarantees are in migrator.ts and docs/decisions/0004-schema-migrations.md.
 * Append only, with ids that sort after the last shipped one (`0001-...`); never edit one that has shipped.
 */
export const MIGRATIONS: Migration[] = [];
