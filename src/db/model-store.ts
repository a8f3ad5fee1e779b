import { sql, type QueryResult } from 'kysely';
import { AppError, validationError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import type { BusinessClock } from '../clock.ts';
import { isRequiredOnCreate, type DeleteContext, type Model, type SaveContext, type Values } from '../models/define-model.ts';
import type { FieldDef } from '../models/fields.ts';
import type { FieldValue } from '../models/fields.ts';
import type { ListQuery } from '../query/list-query.ts';
import type { Database, DbExecutor } from './database.ts';
import { rowReader, toDbValue, toDbValues, type RowReader } from './row-codec.ts';
import { insideTransaction, inTransaction } from './transaction.ts';
import { publish } from '../event-log.ts';
import { codeTaken, nextCode, type CodeColumn } from './code-counter.ts';
import { QueryCache, type Prepared } from './query-cache.ts';
import type { CountCache } from './count-cache.ts';
import { translateDbError, type WriteKind } from './translate-error.ts';
import { readingFromReplicas } from './read-replicas.ts';
import { checkPrecondition } from './preconditions.ts';
import { insertedId } from './inserted-id.ts';
import { insertRows } from './insert-shapes.ts';
import type { Statement } from './statement-batch.ts';

export type StoredRecord = Record<string, FieldValue>;

/**
 * What one write did, for watchers that need the record (visible fields only): undefined for a
 * batch insert (`insertMany`).
 */
export interface WriteChange {
  action: 'create' | 'update' | 'delete';
  record: StoredRecord;
  /** The record before an update. */
  before?: StoredRecord;
}

/** Work that must happen in the same transaction as any write to some models (e.g. a cache version bump). */
export type WriteWatcher = (db: DbExecutor, model: Model, change?: WriteChange) => Promise<void>;
/** A later module's veto on deleting another module's records (throws AppError to refuse). */
export type DeleteGuard = (ctx: DeleteContext) => Promise<void>;

/**
 * Generic persistence of registry models: the one place where records are read and written, so
 * hooks, validation, driver-error translation and model events apply to every path that writes.
 */
/** What preparing a record of a model goes through, derived once per model: the fields with `initial` values, and the fields any check looks at (in declaration order). */
interface FieldPlan {
  initial: Array<[string, FieldDef]>;
  checked: Array<[string, FieldDef]>;
  /** The columns with a declared default (but the serial key): `insertStatement` writes them all. */
  defaulted: string[];
}

const fieldPlans = new WeakMap<Model, FieldPlan>();

function fieldPlanOf(model: Model): FieldPlan {
  let plan = fieldPlans.get(model);
  if (!plan) {
    const fields = Object.entries(model.fields);
    plan = {
      initial: fields.filter(([, field]) => field.initial),
      checked: fields.filter(([, field]) => isRequiredOnCreate(field) || !field.nullable || field.values),
      defaulted: fields.filter(([, field]) => field.default !== undefined && field.type !== 'serial').map(([name]) => name),
    };
    fieldPlans.set(model, plan);
  }
  return plan;
}

export class ModelStore {
  readonly database: Database;
  readonly events: EventBus;
  #readers = new WeakMap<Model, { all: RowReader; visible: RowReader }>();
  readonly #queries: QueryCache;
  readonly #watchers = new Map<string, WriteWatcher[]>();
  readonly #deletedListeners: DeleteGuard[] = [];
  readonly #deleteGuards = new Map<string, DeleteGuard[]>();
  readonly #counts: CountCache | undefined;

  /** Fills `initial` values: business dates on the installation's wall clock, timestamps in UTC. */
  readonly clock: BusinessClock;

  constructor(database: Database, events: EventBus, clock: BusinessClock, options: { counts?: CountCache } = {}) {
    this.database = database;
    this.events = events;
    this.clock = clock;
    this.#queries = new QueryCache(database);
    this.#counts = options.counts;
  }

  async #run(db: DbExecutor, prepared: Prepared): Promise<Record<string, unknown>[]> {
    const query = { ...prepared.query, parameters: prepared.parameters };
    // Outside a transaction, straight to the connection where the engine allows it (database.ts).
    if (db === this.database.kysely && this.database.read) return this.database.read(query);
    return (await db.executeQuery<Record<string, unknown>>(query)).rows;
  }

  #reader(model: Model, scope: 'all' | 'visible'): RowReader {
    let readers = this.#readers.get(model);
    if (!readers) {
      const visible = rowReader(model, model.visibleFields);
      const { redact } = model;
      readers = { all: rowReader(model), visible: redact ? (row) => redact(visible(row)) : visible };
      this.#readers.set(model, readers);
    }
    return readers[scope];
  }

  async #guard<T>(kind: WriteKind, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw translateDbError(error, kind) ?? error;
    }
  }

  /** One record by primary key, without hidden fields unless `scope` is 'all'. */
  async get(model: Model, id: FieldValue, db: DbExecutor = this.database.kysely, scope: 'all' | 'visible' = 'visible', locking = false) {
    const columns = scope === 'all' ? model.fieldNames : model.visibleFields;
    const prepared = this.#queries.byId(model, columns, scope, id, locking);
    const [row] = await this.#guard('read', () => this.#run(db, prepared));
    if (!row) return undefined;
    const record = this.#reader(model, scope)(row);
    if (this.events.has('model.load')) this.events.emit('model.load', { model: model.resource, record });
    return record;
  }

  /** How many records match a list query's filters (see CountCache for when a kept total is reused). */
  async count(model: Model, query: ListQuery): Promise<number> {
    return this.#total(model, this.#queries.list(model, query).count);
  }

  async #total(model: Model, count: Prepared): Promise<number> {
    const run = async () => Number((await this.#guard('read', () => this.#run(this.database.kysely, count)))[0]?.total ?? 0);
    if (!this.#counts) return run();
    // A replica's totals are kept apart: they may be behind this instance's own writes.
    const key = `${readingFromReplicas() ? 'replica' : 'primary'}\u0000${count.query.sql}\u0000${JSON.stringify(count.parameters)}`;
    return this.#counts.total(model, key, run, !insideTransaction());
  }

  async list(model: Model, query: ListQuery): Promise<{ rows: StoredRecord[]; total: number }> {
    const { select, count } = this.#queries.list(model, query);
    const [rows, total] = await Promise.all([this.#guard('read', () => this.#run(this.database.kysely, select)), this.#total(model, count)]);
    return { rows: this.#loaded(model, rows), total };
  }

  /** One page of a list query, without the count (a list read in chunks). */
  async page(model: Model, query: ListQuery & { limit: number }): Promise<StoredRecord[]> {
    const { select } = this.#queries.list(model, query);
    return this.#loaded(model, await this.#guard('read', () => this.#run(this.database.kysely, select)));
  }

  #loaded(model: Model, rows: Array<Record<string, unknown>>): StoredRecord[] {
    const records = rows.map(this.#reader(model, 'visible'));
    if (this.events.has('model.load')) for (const record of records) this.events.emit('model.load', { model: model.resource, record });
    return records;
  }

  /**
   * Runs `watcher` inside the transaction of every create, update and delete of these models
   * (by resource name), after the write: what it writes commits or rolls back with the change.
   */
  watch(resources: string[], watcher: WriteWatcher): void {
    for (const resource of resources) this.#watchers.set(resource, [...(this.#watchers.get(resource) ?? []), watcher]);
  }

  /**
   * Runs `guard` before every delete of these models (by resource name), after the model's own
   * `beforeDelete`, in the delete's transaction: how a module refuses deleting records an earlier
   * module owns but it uses (a product sold in document lines) without that module reading its
   * tables.
   */
  guardDelete(resources: string[], guard: DeleteGuard): void {
    for (const resource of resources) this.#deleteGuards.set(resource, [...(this.#deleteGuards.get(resource) ?? []), guard]);
  }

  /**
   * Runs `listener` in the transaction of every record deleted, of any model: how a module drops
   * its links to records of other modules (a file's links to an invoice) when they go.
   */
  onDeleted(listener: DeleteGuard): void {
    this.#deletedListeners.push(listener);
  }

  /**
   * Tells the `onDeleted` listeners that a record was deleted in `ctx.db`. `remove` calls it; a use
   * case that deletes rows itself (documents) calls it for each record it deletes.
   */
  async deleted(ctx: DeleteContext): Promise<void> {
    for (const listener of this.#deletedListeners) await listener(ctx);
  }

  async #written(model: Model, db: DbExecutor, change?: WriteChange): Promise<void> {
    for (const watcher of this.#watchers.get(model.resource) ?? []) await watcher(db, model, change);
  }

  /** Logs and announces `model.save`/`model.delete` of records of `model` (internal models: announced only). */
  #publish(db: DbExecutor, model: Model, type: 'model.save' | 'model.delete', records: StoredRecord[], created = false): Promise<void> {
    const pk = model.primaryKey;
    const log = !model.internal;
    return publish(db, this, ...records.map((record) => type === 'model.save'
      ? { type, payload: { model: model.resource, record, created }, resource: model.resource, key: record[pk], log }
      : { type, payload: { model: model.resource, record }, resource: model.resource, key: record[pk], log }));
  }

  async #prepare(ctx: SaveContext, creating: boolean): Promise<void> {
    const { model, values } = ctx;
    const plan = fieldPlanOf(model);
    if (creating) {
      for (const [name, field] of plan.initial) {
        if (values[name] === undefined) values[name] = field.initial!(this.clock);
      }
    }
    await model.hooks?.beforeSave?.(ctx);
    const errors: Record<string, string> = {};
    for (const [name, field] of plan.checked) {
      const value = values[name];
      if (creating && value === undefined && isRequiredOnCreate(field)) errors[name] = 'required';
      if (value === null && !field.nullable) errors[name] = 'required';
      // A field's vocabulary holds on every path, not only for what a request coerced.
      if (field.values && value !== undefined && value !== null && !field.values.includes(String(value))) errors[name] = 'invalid-value';
    }
    Object.assign(errors, model.validate?.(values, ctx.existing) ?? {});
    if (Object.keys(errors).length) throw validationError(errors);
  }

  /**
   * Inserts a record (serial and code keys generated when absent); runs in its own transaction
   * unless given one. `model.save` is logged in that transaction and emitted once it commits.
   */
  async create(model: Model, input: Values, db?: DbExecutor): Promise<{ record: StoredRecord; reveal: Record<string, unknown> }> {
    const generated = Object.entries(model.fields)
      .filter(([name, field]) => field.generatedCode && (input[name] === undefined || input[name] === null || input[name] === ''))
      .map(([name, field]) => ({ name, source: field.generatedCode === true ? { table: model.table, column: name } : field.generatedCode! }));
    return this.#within(db, async (trx) => {
      const result = generated.length ? await this.#insertWithCodes(model, input, trx, generated) : await this.#insert(model, { ...input }, trx);
      await this.#publish(trx, model, 'model.save', [result.record], true);
      await this.#written(model, trx, { action: 'create', record: result.record });
      return result;
    });
  }

  /**
   * Inserts with generated codes. The counter never hands a code out twice, but a client may be
   * inserting that very code in a transaction not yet committed: the insert then fails as a
   * duplicate once that one commits. The insert runs under a savepoint, so such a collision rolls
   * back only itself and the creation goes on with the next code.
   */
  async #insertWithCodes(model: Model, input: Values, db: DbExecutor, generated: Array<{ name: string; source: CodeColumn }>) {
    const { engine } = this.database;
    for (let attempt = 1; ; attempt++) {
      const values = { ...input };
      for (const { name, source } of generated) values[name] = await nextCode(db, engine, source);
      await sql`SAVEPOINT generated_code`.execute(db);
      try {
        const result = await this.#insert(model, values, db);
        await sql`RELEASE SAVEPOINT generated_code`.execute(db);
        return result;
      } catch (error) {
        await sql`ROLLBACK TO SAVEPOINT generated_code`.execute(db);
        const collided = error instanceof AppError && error.code === 'duplicate-record' && attempt < 5 &&
          (await Promise.all(generated.map(({ name, source }) => codeTaken(db, source, values[name] as string)))).some(Boolean);
        if (!collided) throw error;
      }
    }
  }

  async #insert(model: Model, values: Values, db: DbExecutor) {
    const { engine } = this.database;
    const pk = model.primaryKey;
    const ctx: SaveContext = { db, dialect: this.database.dialect, clock: this.clock, model, values, existing: undefined, reveal: {} };
    await this.#guard('insert', () => this.#prepare(ctx, true));
    const row = toDbValues(engine, model, values);
    const id = await this.#guard('insert', async () => {
      const insert = db.insertInto(model.table).values(row);
      if (model.fields[pk]!.type !== 'serial' || row[pk] !== undefined) {
        await insert.execute();
        // PostgreSQL sequences do not move on explicit ids; without this the next generated id collides.
        if (engine === 'postgres' && model.fields[pk]!.type === 'serial') {
          await sql`SELECT setval(pg_get_serial_sequence(${model.table}, ${pk}), (SELECT MAX(${sql.ref(pk)}) FROM ${sql.table(model.table)}))`.execute(db);
        }
        return row[pk];
      }
      return insertedId(engine, insert, pk);
    });
    const stored = (await this.get(model, id as FieldValue, db, 'all'))!;
    const record = ((await this.#guard('insert', async () => model.hooks?.afterSave?.({ ...ctx, record: stored }))) ?? stored) as StoredRecord;
    return { record: this.#visible(model, record), reveal: ctx.reveal };
  }

  /**
   * The values a new record would be stored with: `initial` values, the model's `beforeSave` hook
   * and its validation (422 on failure), without writing anything.
   */
  async prepareNew(model: Model, input: Values, db: DbExecutor): Promise<Values> {
    const values = { ...input };
    await this.#guard('insert', () => this.#prepare({ db, dialect: this.database.dialect, clock: this.clock, model, values, existing: undefined, reveal: {} }, true));
    return values;
  }

  /**
   * Inserts several new records of one model with few statements (as many rows each as the
   * engines' limits on bound values allow), in the caller's transaction, with the same defaults,
   * hooks before saving and validation as `create` (models with `afterSave` hooks or generated
   * codes use `create`). Returns the new serial ids, in input order; `model.save` is logged for
   * each record (one statement for all, at the commit) and emitted once the transaction commits.
   */
  async insertMany(model: Model, inputs: Values[], db: DbExecutor, options: { prepared?: boolean } = {}): Promise<number[]> {
    if (!inputs.length) return [];
    if (model.hooks?.afterSave || Object.values(model.fields).some((field) => field.generatedCode)) {
      throw new Error(`${model.name} needs create(): it has an afterSave hook or generated codes`);
    }
    const rows: Array<Record<string, unknown>> = [];
    const saved: StoredRecord[] = [];
    for (const input of inputs) {
      // Values that went through `prepareNew` already are not prepared twice.
      const values = options.prepared ? input : await this.prepareNew(model, input, db);
      rows.push(toDbValues(this.database.engine, model, values));
      saved.push(values as StoredRecord);
    }
    // One column list for every row: a value one row leaves out takes the column's declared
    // default (SQLite has no DEFAULT keyword in a VALUES list).
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const fallback = (column: string) => toDbValue(this.database.engine, model.fields[column]!, model.fields[column]!.default ?? null);
    const aligned = rows.map((row) => Object.fromEntries(columns.map((column) => [column, column in row ? row[column] : fallback(column)])));
    const pk = model.primaryKey;
    const serial = model.fields[pk]!.type === 'serial' && !columns.includes(pk);
    const ids: number[] = [];
    // SQLite binds at most 32766 values per statement, PostgreSQL 65535: stay well below both.
    const perStatement = Math.max(1, Math.floor(30_000 / columns.length));
    for (let start = 0; start < aligned.length; start += perStatement) {
      const batch = aligned.slice(start, start + perStatement);
      const insert = db.insertInto(model.table).values(batch);
      await this.#guard('insert', async () => {
        if (!serial) await insert.execute();
        else if (this.database.engine === 'mysql') {
          // InnoDB gives a multi-row insert consecutive ids (auto-increment lock modes 0 and 1, the default).
          const first = Number((await insert.executeTakeFirstOrThrow()).insertId);
          for (let i = 0; i < batch.length; i++) ids.push(first + i);
        } else {
          // Ids are drawn in VALUES order; RETURNING need not keep it, so they are sorted back.
          ids.push(...(await insert.returning(pk).execute()).map((row) => Number(row[pk])).sort((a, b) => a - b));
        }
      });
    }
    if (serial) saved.forEach((record, index) => (record[pk] = ids[index]!));
    await this.#publish(db, model, 'model.save', saved.map((record) => this.#visible(model, record)), true);
    await this.#written(model, db);
    return ids;
  }

  /**
   * For a writer that sends statements together (statement-batch.ts, a document's commit): new
   * records of `model`, already through `prepareNew`, as one INSERT (one column list for every
   * row, as `insertMany` aligns them), and how to read the serial ids it drew, in input order.
   * Announce them with `announceInserted` once written. The caller keeps within the engines'
   * limits on bound values (a document's lines do).
   */
  insertStatement(model: Model, records: Values[], db: DbExecutor): { statements: Statement[]; rows: Array<Record<string, unknown>>; ids(results: Array<QueryResult<Record<string, unknown>>>): number[] } {
    const engine = this.database.engine;
    const rows = records.map((values) => toDbValues(engine, model, values));
    // Every column with a declared default is written (its default when a record leaves it out),
    // so that the rows are the records as stored: their writer answers them without reading back.
    const columns = [...new Set([...rows.flatMap((row) => Object.keys(row)), ...fieldPlanOf(model).defaulted])];
    const fallback = (column: string) => toDbValue(engine, model.fields[column]!, model.fields[column]!.default ?? null);
    const aligned = rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (const column of columns) out[column] = column in row ? row[column] : fallback(column);
      return out;
    });
    const pk = model.primaryKey;
    const serial = model.fields[pk]!.type === 'serial' && !columns.includes(pk);
    // SQLite binds at most 32766 values per statement, PostgreSQL 65535: stay well below both.
    const perStatement = Math.max(1, Math.floor(30_000 / columns.length));
    const statements: Statement[] = [];
    for (let start = 0; start < aligned.length; start += perStatement) {
      statements.push(insertRows(db, model.table, aligned.slice(start, start + perStatement), serial && engine !== 'mysql' ? pk : undefined));
    }
    return {
      statements,
      rows: aligned,
      ids: (results) => {
        if (!serial) return aligned.map((row) => Number(row[pk]));
        return results.flatMap((result, index) => {
          const count = Math.min(perStatement, aligned.length - index * perStatement);
          // InnoDB gives a multi-row insert consecutive ids (auto-increment lock modes 0 and 1, the default).
          if (engine === 'mysql') return Array.from({ length: count }, (_, offset) => Number(result.insertId) + offset);
          return result.rows.map((row) => Number(row[pk])).sort((a, b) => a - b);
        });
      },
    };
  }

  /**
   * Announces new records a writer inserted itself (`insertStatement`): `model.save` is logged in
   * the transaction and emitted once it commits, and the model's watchers are told, as `create`
   * (`single`) or `insertMany` tell them.
   */
  async announceInserted(model: Model, records: StoredRecord[], db: DbExecutor, single: boolean): Promise<void> {
    const visible = records.map((record) => this.#visible(model, record));
    await this.#publish(db, model, 'model.save', visible, true);
    await this.#written(model, db, single && visible.length === 1 ? { action: 'create', record: visible[0]! } : undefined);
  }

  /** Partial update of the given fields; the primary key cannot change. */
  async update(model: Model, id: FieldValue, input: Values, db?: DbExecutor): Promise<StoredRecord> {
    const record = await this.#within(db, async (trx) => {
      // Locked until the transaction ends: hooks merge into what is stored (settings), and two
      // concurrent updates must each see the other's result, not overwrite it.
      const existing = await this.get(model, id, trx, 'all', true);
      if (!existing) throw new AppError('record-not-found');
      await checkPrecondition(trx, model, id);
      if (model.appendOnly && Object.keys(input).some((name) => !model.appendOnly!.mutable.includes(name))) throw new AppError('record-immutable');
      const values = { ...input };
      const ctx: SaveContext = { db: trx, dialect: this.database.dialect, clock: this.clock, model, values, existing, reveal: {} };
      await this.#guard('update', () => this.#prepare(ctx, false));
      const row = toDbValues(this.database.engine, model, values);
      delete row[model.primaryKey];
      if (Object.keys(row).length) {
        const pkValue = toDbValue(this.database.engine, model.fields[model.primaryKey]!, id);
        await this.#guard('update', () => trx.updateTable(model.table).set(row).where(model.primaryKey, '=', pkValue).execute());
      }
      const written = (await this.get(model, id, trx, 'all'))!;
      const saved = ((await this.#guard('update', async () => model.hooks?.afterSave?.({ ...ctx, record: written }))) ?? written) as StoredRecord;
      const visible = this.#visible(model, saved);
      await this.#publish(trx, model, 'model.save', [visible]);
      await this.#written(model, trx, { action: 'update', record: visible, before: this.#visible(model, existing as StoredRecord) });
      return visible;
    });
    return record;
  }

  async remove(model: Model, id: FieldValue, db?: DbExecutor): Promise<StoredRecord> {
    const record = await this.#within(db, async (trx) => {
      // Locked: the delete would lock it anyway, and a request's precondition is checked under the lock.
      const existing = await this.get(model, id, trx, 'visible', true);
      if (!existing) throw new AppError('record-not-found');
      await checkPrecondition(trx, model, id);
      if (model.appendOnly) throw new AppError('record-immutable');
      const hook = { db: trx, dialect: this.database.dialect, clock: this.clock, model, existing };
      await this.#guard('delete', async () => model.hooks?.beforeDelete?.(hook));
      for (const guard of this.#deleteGuards.get(model.resource) ?? []) await this.#guard('delete', () => guard(hook));
      const pkValue = toDbValue(this.database.engine, model.fields[model.primaryKey]!, id);
      await this.#guard('delete', () => trx.deleteFrom(model.table).where(model.primaryKey, '=', pkValue).execute());
      await this.#guard('delete', async () => model.hooks?.afterDelete?.(hook));
      await this.deleted(hook);
      await this.#publish(trx, model, 'model.delete', [existing]);
      await this.#written(model, trx, { action: 'delete', record: existing });
      return existing;
    });
    return record;
  }

  #within<T>(db: DbExecutor | undefined, fn: (trx: DbExecutor) => Promise<T>): Promise<T> {
    return db ? fn(db) : inTransaction(this.database, fn);
  }

  #visible(model: Model, record: StoredRecord): StoredRecord {
    if (!model.hidden.size) return model.redact ? model.redact(record) : record;
    const copy: StoredRecord = {};
    for (const name of model.visibleFields) copy[name] = record[name]!;
    return model.redact ? model.redact(copy) : copy;
  }
}
