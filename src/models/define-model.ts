import type { FieldDef, FieldValue } from './fields.ts';
import { pluralize } from './pluralize.ts';
import type { DbExecutor } from '../db/database.ts';
import type { SqlDialect } from '../db/dialect.ts';
import type { BusinessClock } from '../clock.ts';

export type Values = Record<string, FieldValue | undefined>;

/** What a hook sees while a record is written, inside the write's transaction. */
export interface SaveContext {
  db: DbExecutor;
  dialect: SqlDialect;
  /** The app's clock: business dates on the installation's wall clock, timestamps in UTC. */
  clock: BusinessClock;
  model: Model;
  /** The values about to be written (hooks may change them). */
  values: Values;
  /** The stored record before an update; undefined on create. */
  existing: Record<string, unknown> | undefined;
  /** Values to show in this one response only (e.g. a token shown once on creation). */
  reveal: Record<string, unknown>;
}

/** What a delete hook sees, inside the delete's transaction. */
export interface DeleteContext {
  db: DbExecutor;
  dialect: SqlDialect;
  /** The app's clock: business dates on the installation's wall clock. */
  clock: BusinessClock;
  model: Model;
  existing: Record<string, unknown>;
}

export interface ModelHooks {
  /** Completes or checks the values before they are written; throws AppError to refuse. */
  beforeSave?(ctx: SaveContext): void | Promise<void>;
  /**
   * Runs after the row is written, in the same transaction (dependent rows). A hook that changes
   * the row itself returns it as now stored, so the response shows it.
   */
  afterSave?(ctx: SaveContext & { record: Record<string, unknown> }): void | Record<string, unknown> | Promise<void | Record<string, unknown>>;
  /** Runs before the row is deleted, in the delete's transaction; throws AppError to refuse. */
  beforeDelete?(ctx: DeleteContext): void | Promise<void>;
  /** Runs after the row is deleted, in the delete's transaction (what depended on it). */
  afterDelete?(ctx: DeleteContext): void | Promise<void>;
}

export interface ModelDefinition {
  /** Class name of the reference (e.g. `Cliente`); the canonical resource is its lower case. */
  name: string;
  table: string;
  fields: Record<string, FieldDef>;
  /** Multi-column unique constraints. */
  unique?: string[][];
  /** Extra indexes for hot filters. */
  indexes?: string[][];
  /** Overrides the reference's plural alias when its rule does not give the reference's name. */
  alias?: string;
  /**
   * Overrides the canonical resource name (the lower-case model name) where the reference serves
   * the model under a custom controller's name (`attachedfiles`).
   */
  resource?: string;
  /** Service bookkeeping (ban counters, cache versions): a table, but never an API resource. */
  internal?: boolean;
  /** A resource clients may read but not write (the service keeps it: e.g. document links). */
  readOnlyResource?: boolean;
  /**
   * Rows are written once and kept for ever (fiscal records): the store refuses deleting one and
   * changing any field but the `mutable` ones (409 `record-immutable`), and the schema sync derives
   * triggers that refuse the same in SQL (db/append-only.ts), whatever path the write takes.
   */
  appendOnly?: { mutable: readonly string[] };
  /**
   * Removes secrets kept inside a visible field from what the API shows (a password key inside a
   * JSON column); hidden fields are dropped already. Returns a copy.
   */
  redact?(record: Record<string, FieldValue>): Record<string, FieldValue>;
  /**
   * What else a record's version (its ETag, http/etag.ts) depends on besides its own visible
   * fields: a document's lines. Read in the caller's transaction when given one.
   */
  versionParts?(db: DbExecutor, record: Record<string, unknown>): Promise<unknown>;
  /** Record-level rules after type checks: returns field -> reason for each failure. */
  validate?(values: Values, existing: Record<string, unknown> | undefined): Record<string, string> | undefined;
  hooks?: ModelHooks;
}

export interface Model extends ModelDefinition {
  /** Canonical resource name: the lower-case model name (`cliente`). */
  resource: string;
  alias: string;
  primaryKey: string;
  fieldNames: string[];
  /** Fields a client may see, filter and sort by. */
  visibleFields: string[];
  hidden: Set<string>;
}

export function defineModel(definition: ModelDefinition): Model {
  const entries = Object.entries(definition.fields);
  const primary = entries.filter(([, field]) => field.primary);
  if (primary.length !== 1) {
    throw new Error(`model ${definition.name} must declare exactly one primary key field`);
  }
  for (const [name, field] of entries) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`model ${definition.name}: bad field name "${name}"`);
    if (field.type === 'string' && !field.length) throw new Error(`model ${definition.name}: ${name} needs a length`);
    for (const value of Object.values(field.aliases ?? {})) {
      if (!field.values?.includes(value)) throw new Error(`model ${definition.name}: ${name} has an alias for "${value}", not one of its values`);
    }
  }
  const hidden = new Set(entries.filter(([, field]) => field.hidden).map(([name]) => name));
  return {
    ...definition,
    // Names from requests index this map: a null prototype means `constructor` or `__proto__` is
    // simply not a field.
    fields: Object.assign(Object.create(null) as Record<string, FieldDef>, definition.fields),
    resource: definition.resource ?? definition.name.toLowerCase(),
    alias: definition.alias ?? pluralize(definition.name),
    primaryKey: primary[0]![0],
    fieldNames: entries.map(([name]) => name),
    visibleFields: entries.filter(([name]) => !hidden.has(name)).map(([name]) => name),
    hidden,
  };
}

/** Required on create: not nullable, no database default, nothing generates it. */
export function isRequiredOnCreate(field: FieldDef): boolean {
  return (
    !field.nullable &&
    field.default === undefined &&
    field.initial === undefined &&
    field.type !== 'serial' &&
    !field.generatedCode &&
    !field.derivedCode &&
    !field.readOnly
  );
}
