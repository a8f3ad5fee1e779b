import { sql } from 'kysely';
import { columnType } from '../../db/column-sql.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import type { Model } from '../../models/define-model.ts';
import type { FieldValue } from '../../models/fields.ts';
import { checkBankDetails } from '../../models/record-rules.ts';
import type { TablePlan } from './import-plan.ts';
import type { ImportFindings } from './import-report.ts';
import type { SourceDatabase } from './source-database.ts';
import { convertValue } from './source-values.ts';

type Row = Record<string, unknown>;

/** Rows read from the source per page. */
const PAGE = 2_000;
/**
 * Parameters per multi-row insert (SQLite, MariaDB): enough rows to spare statements, few enough
 * that each prepared statement kept stays small (SQLite keeps a program per text, and the
 * statement cache keeps every table's for the whole run: one of thousands of parameters is
 * megabytes of it). SQLite has no round trip to save: a few rows a statement are as fast.
 */
const PARAMETERS = { sqlite: 500, mysql: 2_000, postgres: 2_000 } as const;

/** A problem that refuses the import: the value cannot be kept as the source stored it. */
const FATAL = new Set(['too-long']);

/** How far a table's copy has gone, for the progress line. */
export interface TableProgress {
  table: string;
  rows: number;
  total: number;
  seconds: number;
  done: boolean;
}

/** The values of deferred columns, written once every table is in (`writeDeferred`). */
export type Deferred = Array<{ model: Model; key: unknown; values: Row }>;

/**
 * Copies one table of the source into the target, in the caller's transaction, page by page (no
 * table is read whole): every row with every column both have, its key included, converted to our
 * representation (source-values.ts) and otherwise as stored. Columns naming a later row are
 * written NULL and kept in `deferred`. What a value needed (a zero date, a NULL where we take
 * none) and what our rules would refuse today (an IBAN that does not check) become findings; a
 * value we cannot keep (longer than our column) refuses the import. Answers the rows copied and the
 * source's count of them in the snapshot.
 */
export async function copyTable(source: SourceDatabase, target: DbExecutor, dialect: SqlDialect, plan: TablePlan, findings: ImportFindings, deferred: Deferred, progress: (state: TableProgress) => void): Promise<{ rows: number; total: number }> {
  const { model, columns } = plan;
  const total = await source.count(plan.source.name);
  const started = performance.now();
  const deferredColumns = new Set(plan.deferred);
  const chunk = Math.max(1, Math.floor(PARAMETERS[dialect.engine] / Math.max(1, columns.length)));
  const hasIban = Object.hasOwn(model.fields, 'iban');
  let copied = 0;
  for await (const page of source.batches(plan.source, columns, PAGE)) {
    const rows: Row[] = [];
    for (const raw of page) {
      const key = raw[model.primaryKey];
      const values: Record<string, FieldValue> = {};
      const later: Row = {};
      for (const column of columns) {
        const field = model.fields[column]!;
        const converted = convertValue(field, raw[column]);
        if (converted.problem) {
          if (FATAL.has(converted.problem)) throw new ImportRefused(`${model.table}.${column} of row ${String(key)} is longer than the ${field.length} characters this service keeps: ${JSON.stringify(String(raw[column]).slice(0, 80))}…`);
          findings.warn(converted.problem, model.table, key, column, raw[column]);
        }
        if (deferredColumns.has(column) && converted.value !== null) {
          later[column] = converted.value;
          values[column] = null;
        } else values[column] = converted.value;
      }
      if (Object.keys(later).length) deferred.push({ model, key, values: later });
      refusedToday(model, values, hasIban, (field, reason) => findings.warn(`refused-today:${reason}`, model.table, key, field, values[field]));
      rows.push(stored(model, values, dialect));
    }
    await insertPage(target, dialect, model, columns, rows, chunk);
    copied += page.length;
    progress({ table: model.table, rows: copied, total, seconds: (performance.now() - started) / 1000, done: false });
  }
  progress({ table: model.table, rows: copied, total, seconds: (performance.now() - started) / 1000, done: true });
  return { rows: copied, total };
}

/**
 * A page of rows into the target. PostgreSQL takes each column as one array parameter, unnested
 * into rows (`INSERT ... SELECT * FROM unnest(...)`): a statement of as many parameters as columns,
 * prepared once per table, instead of one of thousands parsed every time. The others take
 * multi-row inserts of `chunk` rows.
 */
async function insertPage(target: DbExecutor, dialect: SqlDialect, model: Model, columns: readonly string[], rows: Row[], chunk: number): Promise<void> {
  if (!rows.length) return;
  if (dialect.engine === 'postgres') {
    const arrays = columns.map((column) => {
      const field = model.fields[column]!;
      const type = field.type === 'serial' ? 'INTEGER' : columnType('postgres', field);
      return sql`CAST(${rows.map((row) => row[column] ?? null)} AS ${sql.raw(`${type}[]`)})`;
    });
    await sql`INSERT INTO ${sql.table(model.table)} (${sql.join(columns.map((column) => sql.ref(column)))}) SELECT * FROM unnest(${sql.join(arrays)})`.execute(target);
    return;
  }
  for (let start = 0; start < rows.length; start += chunk) await target.insertInto(model.table).values(rows.slice(start, start + chunk)).execute();
}

/** A row as the engine stores it: booleans as the dialect keeps them. */
function stored(model: Model, values: Record<string, FieldValue>, dialect: SqlDialect): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) row[name] = model.fields[name]!.type === 'boolean' && value !== null ? dialect.boolean(Boolean(value)) : value;
  return row;
}

/**
 * What the model's own rules (and the bank-detail check) would refuse of a row today: history is
 * imported as it is, and the report lists it.
 */
function refusedToday(model: Model, values: Record<string, FieldValue>, hasIban: boolean, refused: (field: string, reason: string) => void): void {
  const errors: Record<string, string> = {};
  try {
    Object.assign(errors, model.validate?.(values, undefined) ?? {});
  } catch {
    // A rule that cannot read an old row is not the import's failure.
  }
  if (hasIban) checkBankDetails(errors, values, true);
  for (const [field, reason] of Object.entries(errors)) if (Object.hasOwn(values, field)) refused(field, reason);
}

/** Writes the deferred columns, now that every row they name is in. */
export async function writeDeferred(target: DbExecutor, dialect: SqlDialect, deferred: Deferred): Promise<void> {
  for (const { model, key, values } of deferred) {
    await target.updateTable(model.table).set(stored(model, values as Record<string, FieldValue>, dialect)).where(model.primaryKey, '=', key as never).execute();
  }
}

/**
 * PostgreSQL's sequences after rows written with their keys: each serial column's sequence moves
 * past the highest key, so that the next row gets the next one (MariaDB and SQLite follow the
 * highest key by themselves).
 */
export async function advanceSequences(target: DbExecutor, dialect: SqlDialect, models: readonly Model[]): Promise<void> {
  if (dialect.engine !== 'postgres') return;
  for (const model of models) {
    for (const [name, field] of Object.entries(model.fields)) {
      if (field.type !== 'serial') continue;
      await sql`SELECT setval(pg_get_serial_sequence(${model.table}, ${name}), COALESCE((SELECT MAX(${sql.ref(name)}) FROM ${sql.table(model.table)}), 0) + 1, false)`.execute(target);
    }
  }
}

/**
 * PostgreSQL's planner statistics of the tables just filled, so that the reads that follow in the
 * same transaction (derived state, verification: a page of documents' lines by their ids) use the
 * indexes: without them a freshly filled table looks empty and is scanned whole for each page.
 * (SQLite plans these by its indexes alike; MariaDB keeps its statistics itself, and its ANALYZE
 * would end the transaction.)
 */
export async function refreshStatistics(target: DbExecutor, dialect: SqlDialect, models: readonly Model[]): Promise<void> {
  if (dialect.engine !== 'postgres') return;
  for (const model of models) await sql`ANALYZE ${sql.table(model.table)}`.execute(target);
}

/** An import that cannot go on: nothing was written (its transaction rolled back). */
export class ImportRefused extends Error {
  override name = 'ImportRefused';
}
