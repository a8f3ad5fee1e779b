import { sql } from 'kysely';
import type { Model } from '../models/define-model.ts';
import type { ModelRegistry } from '../models/registry.ts';
import type { Database } from './database.ts';
import { columnSql, quoteIdent } from './column-sql.ts';
import { alterColumnTypes, planTypeChanges } from './column-type-change.ts';
import { readLiveColumns, readLiveConstraints, readLivePlainIndexes } from './live-schema.ts';
import {
  appliedMigrationIds,
  checkMigrations,
  ensureMigrationsTable,
  MIGRATIONS_TABLE,
  pendingMigrations,
  recordMigration,
  runMigration,
  type Migration,
} from './migrator.ts';
import { withSchemaLock } from './schema-lock.ts';
import { dropAppendOnlyTriggers, syncAppendOnlyTriggers } from './append-only.ts';
import { rebuildSqliteTable, sqliteForeignKeysChanged } from './sqlite-rebuild.ts';
import { constraintName, createTableSql, foreignKeySql, tableIndexes } from './table-sql.ts';

export type { Migration, MigrationPhase } from './migrator.ts';
export { SchemaChangeRefusedError } from './column-type-change.ts';

export interface SyncReport {
  createdTables: string[];
  addedColumns: string[];
  /** SQLite tables rebuilt because their declared foreign keys or column types changed. */
  rebuiltTables: string[];
  /** Migrations run by this sync, before-sync ones first, each phase in id order. */
  appliedMigrations: string[];
  /** Existing columns (`table.column`) whose type this sync changed (a longer varchar, integer to double ...). */
  alteredColumns?: string[];
  /** Before-sync migrations recorded without running, because this sync created the database in its final shape. */
  skippedMigrations?: string[];
  /** Plain indexes (`ix_` names) of the registry's tables that the models no longer derive, dropped. */
  droppedIndexes?: string[];
  /** Triggers of append-only tables created (db/append-only.ts). */
  createdTriggers?: string[];
}

/**
 * Brings the database in line with the registry, in this order, under the schema lock and, on
 * PostgreSQL and SQLite, as one transaction (schema-lock.ts; docs/decisions/0004):
 * 1. pending before-sync migrations (renames, conversions; recorded without running on a new database);
 * 2. the plan: column type changes are compared with the live schema, and an unsafe one not covered
 *    by a before-sync migration's `converts` throws SchemaChangeRefusedError before any DDL;
 * 3. type changes are applied (first: they can fail on the data; SQLite rebuilds the table, as it
 *    does when its foreign keys changed), missing tables and columns created, then missing unique
 *    constraints, indexes and foreign keys; then plain indexes (`ix_`) of the registry's tables
 *    that the models no longer derive are dropped (a covered index, one a model stopped declaring);
 *    then the triggers of append-only tables (db/append-only.ts);
 * 4. pending after-sync migrations (backfills).
 * No table, column or constraint is dropped, so rows survive an upgrade; a second run with the
 * same registry changes nothing.
 */
export async function syncSchema(database: Database, registry: ModelRegistry, migrations: Migration[] = []): Promise<SyncReport> {
  checkMigrations(migrations);
  const { engine } = database;
  const q = (name: string) => quoteIdent(engine, name);
  return withSchemaLock(database, async (db) => {
    const report: Required<SyncReport> = {
      createdTables: [],
      addedColumns: [],
      rebuiltTables: [],
      appliedMigrations: [],
      alteredColumns: [],
      skippedMigrations: [],
      droppedIndexes: [],
      createdTriggers: [],
    };
    const run = (text: string) => sql.raw(text).execute(db);
    let live = await readLiveColumns(db, engine);
    await ensureMigrationsTable(db, engine, live.has(MIGRATIONS_TABLE));
    const applied = await appliedMigrationIds(db);

    const before = pendingMigrations(migrations, 'before-sync', applied);
    const newDatabase = registry.models.every((model) => !live.has(model.table));
    for (const migration of before) {
      if (newDatabase) {
        await recordMigration(db, migration.id);
        report.skippedMigrations.push(migration.id);
      } else {
        await runMigration(db, engine, migration);
        report.appliedMigrations.push(migration.id);
      }
    }
    if (report.appliedMigrations.length) live = await readLiveColumns(db, engine);

    const converts = new Set(newDatabase ? [] : before.flatMap((migration) => migration.converts ?? []));
    const typeChanges = planTypeChanges(engine, registry.models, live, converts);

    // New tables may reference tables created after them; keys added to old tables are checked below.
    if (engine === 'mysql') await run('SET FOREIGN_KEY_CHECKS = 0');
    // Conversions first: they are the DDL that can fail on the data, and on MariaDB/MySQL (no
    // transactional DDL) a failure then leaves no other change half-done. SQLite converts by rebuilding, below.
    if (engine !== 'sqlite') {
      if (typeChanges.length) await dropAppendOnlyTriggers(db, engine, typeChanges.map((change) => change.table));
      for (const table of new Set(typeChanges.map((change) => change.table))) {
        await alterColumnTypes(db, engine, table, typeChanges.filter((change) => change.table === table));
      }
    }
    const foreignKeys: Array<[Model, string]> = [];
    for (const model of registry.models) {
      const columns = live.get(model.table);
      if (!columns) {
        await run(createTableSql(engine, model));
        report.createdTables.push(model.table);
        for (const [name, field] of Object.entries(model.fields)) if (field.references) foreignKeys.push([model, name]);
        continue;
      }
      const present = new Set(columns.keys());
      for (const [name, field] of Object.entries(model.fields)) {
        if (present.has(name)) continue;
        await run(`ALTER TABLE ${q(model.table)} ADD COLUMN ${columnSql(engine, name, field, true)}`);
        report.addedColumns.push(`${model.table}.${name}`);
        present.add(name);
      }
      const changes = typeChanges.filter((change) => change.table === model.table);
      if (engine === 'sqlite') {
        if (changes.length || (await sqliteForeignKeysChanged(db, model))) {
          await rebuildSqliteTable(db, model, present);
          report.rebuiltTables.push(model.table);
        }
      } else {
        for (const [name, field] of Object.entries(model.fields)) if (field.references) foreignKeys.push([model, name]);
      }
      report.alteredColumns.push(...changes.map((change) => `${change.table}.${change.column}`));
    }

    if (engine === 'mysql') await run('SET FOREIGN_KEY_CHECKS = 1');
    const constraints = await readLiveConstraints(db, engine);
    for (const model of registry.models) {
      for (const index of tableIndexes(model)) {
        if (constraints.has(index.name)) continue;
        await run(`CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q(index.name)} ON ${q(model.table)} (${index.columns.map(q).join(', ')})`);
      }
    }
    // After the creations: on MariaDB/MySQL a foreign key then finds the covering index that
    // replaces the one dropped. Tables of no registered model are not touched.
    const derived = new Map(registry.models.map((model) => [model.table, new Set(tableIndexes(model).map((index) => index.name))]));
    for (const index of await readLivePlainIndexes(db, engine)) {
      const wanted = derived.get(index.table);
      if (!wanted || wanted.has(index.name)) continue;
      await run(engine === 'mysql' ? `DROP INDEX ${q(index.name)} ON ${q(index.table)}` : `DROP INDEX ${q(index.name)}`);
      report.droppedIndexes.push(index.name);
    }
    // SQLite declares foreign keys inline; the other engines get the missing ones once every table exists.
    if (engine !== 'sqlite') {
      for (const [model, column] of foreignKeys) {
        if (constraints.has(constraintName('fk', model.table, [column]))) continue;
        await run(`ALTER TABLE ${q(model.table)} ADD ${foreignKeySql(engine, model, column)}`);
      }
    }

    // Last of the DDL: a SQLite table rebuilt above lost its triggers with its old copy.
    report.createdTriggers.push(...(await syncAppendOnlyTriggers(db, engine, registry)));

    for (const migration of pendingMigrations(migrations, 'after-sync', applied)) {
      await runMigration(db, engine, migration);
      report.appliedMigrations.push(migration.id);
    }
    return report;
  });
}
