import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Model } from '../models/define-model.ts';
import type { ModelRegistry } from '../models/registry.ts';
import type { DbExecutor, Engine } from './database.ts';
import { quoteIdent } from './column-sql.ts';
import { APPEND_ONLY_MESSAGE } from './translate-error.ts';

/**
 * Append-only tables in SQL (models with `appendOnly`): triggers refuse deleting a row and changing
 * any column but the model's `mutable` ones, so that no path, not even a plugin's own SQL, alters a
 * fiscal record. The store refuses the same before the database does (model-store.ts); a refusal
 * that reaches the driver carries APPEND_ONLY_MESSAGE and becomes `record-immutable` (translate-error.ts).
 *
 * Trigger names carry a digest of the guarded columns: a model that guards another column set gets
 * new triggers and the old ones are dropped. MariaDB/MySQL cannot guard TRUNCATE (it fires no
 * trigger); creating triggers there needs the TRIGGER privilege (and, with binary logging, SUPER or
 * `log_bin_trust_function_creators`), see docs/deploy.md.
 */
const PREFIX = 'tgao_';
const PG_FUNCTION = 'append_only_refusal';

interface Trigger {
  name: string;
  table: string;
  sql: string;
}

/** The columns whose value a row keeps for ever. */
function guardedColumns(model: Model): string[] {
  const mutable = new Set(model.appendOnly?.mutable ?? []);
  return model.fieldNames.filter((name) => !mutable.has(name));
}

function triggerName(model: Model, kind: string, columns: string[] = []): string {
  const digest = createHash('sha256').update(columns.join(',')).digest('hex').slice(0, 8);
  return `${PREFIX}${model.table.slice(0, 40)}_${kind}_${digest}`;
}

/** The triggers an append-only model's table has on `engine`. */
export function appendOnlyTriggers(engine: Engine, model: Model): Trigger[] {
  const q = (name: string) => quoteIdent(engine, name);
  const table = model.table;
  const columns = guardedColumns(model);
  const message = `'${APPEND_ONLY_MESSAGE}: ${table}'`;
  const update = triggerName(model, 'u', columns);
  const remove = triggerName(model, 'd');
  if (engine === 'sqlite') {
    const changed = columns.map((c) => `OLD.${q(c)} IS NOT NEW.${q(c)}`).join(' OR ');
    const replace = triggerName(model, 'r');
    const key = q(model.primaryKey);
    return [
      { name: update, table, sql: `CREATE TRIGGER ${q(update)} BEFORE UPDATE ON ${q(table)} FOR EACH ROW WHEN ${changed} BEGIN SELECT RAISE(ABORT, ${message}); END` },
      { name: remove, table, sql: `CREATE TRIGGER ${q(remove)} BEFORE DELETE ON ${q(table)} FOR EACH ROW BEGIN SELECT RAISE(ABORT, ${message}); END` },
      // INSERT OR REPLACE deletes the row it replaces without firing delete triggers (recursive triggers are off).
      { name: replace, table, sql: `CREATE TRIGGER ${q(replace)} BEFORE INSERT ON ${q(table)} FOR EACH ROW WHEN EXISTS (SELECT 1 FROM ${q(table)} WHERE ${key} = NEW.${key}) BEGIN SELECT RAISE(ABORT, ${message}); END` },
    ];
  }
  if (engine === 'postgres') {
    const changed = columns.map((c) => `OLD.${q(c)} IS DISTINCT FROM NEW.${q(c)}`).join(' OR ');
    const truncate = triggerName(model, 't');
    return [
      { name: update, table, sql: `CREATE TRIGGER ${q(update)} BEFORE UPDATE ON ${q(table)} FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION ${PG_FUNCTION}()` },
      { name: remove, table, sql: `CREATE TRIGGER ${q(remove)} BEFORE DELETE ON ${q(table)} FOR EACH ROW EXECUTE FUNCTION ${PG_FUNCTION}()` },
      { name: truncate, table, sql: `CREATE TRIGGER ${q(truncate)} BEFORE TRUNCATE ON ${q(table)} FOR EACH STATEMENT EXECUTE FUNCTION ${PG_FUNCTION}()` },
    ];
  }
  const same = columns.map((c) => `OLD.${q(c)} <=> NEW.${q(c)}`).join(' AND ');
  const signal = `SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = ${message}`;
  return [
    { name: update, table, sql: `CREATE TRIGGER ${q(update)} BEFORE UPDATE ON ${q(table)} FOR EACH ROW BEGIN IF NOT (${same}) THEN ${signal}; END IF; END` },
    { name: remove, table, sql: `CREATE TRIGGER ${q(remove)} BEFORE DELETE ON ${q(table)} FOR EACH ROW ${signal}` },
  ];
}

/** Our triggers that exist, by name, with their table. */
async function liveTriggers(db: DbExecutor, engine: Engine): Promise<Map<string, string>> {
  const query = engine === 'sqlite'
    ? sql<{ name: string; tbl: string }>`SELECT name, tbl_name AS tbl FROM sqlite_master WHERE type = 'trigger'`
    : engine === 'postgres'
      ? sql<{ name: string; tbl: string }>`SELECT t.tgname AS name, c.relname AS tbl FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`
      : sql<{ name: string; tbl: string }>`SELECT TRIGGER_NAME AS name, EVENT_OBJECT_TABLE AS tbl FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()`;
  const rows = (await query.execute(db)).rows;
  return new Map(rows.filter((row) => String(row.name).startsWith(PREFIX)).map((row) => [String(row.name), String(row.tbl)]));
}

async function dropTrigger(db: DbExecutor, engine: Engine, name: string, table: string): Promise<void> {
  const q = (identifier: string) => quoteIdent(engine, identifier);
  await sql.raw(engine === 'postgres' ? `DROP TRIGGER IF EXISTS ${q(name)} ON ${q(table)}` : `DROP TRIGGER IF EXISTS ${q(name)}`).execute(db);
}

/**
 * Drops our triggers on these tables: PostgreSQL refuses to change the type of a column a trigger
 * names, so the schema sync drops them before its type changes; its last step creates them again.
 */
export async function dropAppendOnlyTriggers(db: DbExecutor, engine: Engine, tables: Iterable<string>): Promise<void> {
  const wanted = new Set(tables);
  for (const [name, table] of await liveTriggers(db, engine)) if (wanted.has(table)) await dropTrigger(db, engine, name, table);
}

/**
 * Brings the append-only triggers in line with the registry (part of the schema sync): missing ones
 * created, ours that no model derives any more dropped. Returns the names created.
 */
export async function syncAppendOnlyTriggers(db: DbExecutor, engine: Engine, registry: ModelRegistry): Promise<string[]> {
  const wanted = registry.models.flatMap((model) => (model.appendOnly ? appendOnlyTriggers(engine, model) : []));
  const live = await liveTriggers(db, engine);
  const run = (text: string) => sql.raw(text).execute(db);
  for (const [name, table] of live) if (!wanted.some((trigger) => trigger.name === name)) await dropTrigger(db, engine, name, table);
  const missing = wanted.filter((trigger) => !live.has(trigger.name));
  if (missing.length && engine === 'postgres') {
    await run(`CREATE OR REPLACE FUNCTION ${PG_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION '${APPEND_ONLY_MESSAGE}: %', TG_TABLE_NAME; END $$`);
  }
  for (const trigger of missing) await run(trigger.sql);
  return missing.map((trigger) => trigger.name);
}
