import { sql } from 'kysely';
import type { Migration } from './migrator.ts';

/**
 * The installation's versioned migrations, for changes the registry cannot derive: renames and
 * conversions (`phase: 'before-sync'`), backfills (after-sync, the default). Tables, columns, safe
 * type changes, indexes and keys themselves come from the model registry (schema-sync.ts). The
 * runner's guarantees are in migrator.ts and docs/decisions/0004-schema-migrations.md.
 * Append only, with ids that sort after the last shipped one (`0001-...`); never edit one that has shipped.
 */
export const MIGRATIONS: Migration[] = [
  {
    // A receipt was in one SEPA remittance for ever (unique `idrecibo`); a receipt returned by the
    // bank is presented again in a later one, so the key becomes (`idrecibo`, `vigente`), `vigente`
    // NULL once returned (docs/banking.md). The sync adds the column and the new key; the old key
    // goes first. On MariaDB/MySQL the foreign key on `idrecibo` needs an index meanwhile: a plain
    // one, which the sync drops once the new key covers the column.
    id: '0001-remittance-receipts-returned',
    phase: 'before-sync',
    async up(db, engine) {
      const old = 'uq_remesassepa_recibos_idrecibo';
      if (engine !== 'mysql') {
        await sql`DROP INDEX IF EXISTS ${sql.id(old)}`.execute(db);
        return;
      }
      const found = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'remesassepa_recibos' AND index_name = ${old}`.execute(db);
      if (Number(found.rows[0]?.n ?? 0) === 0) return;
      await sql`ALTER TABLE remesassepa_recibos ADD INDEX ix_remesassepa_recibos_idrecibo (idrecibo), DROP INDEX ${sql.id(old)}`.execute(db);
    },
  },
];
