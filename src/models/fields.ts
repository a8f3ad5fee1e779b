import type { BusinessClock } from '../clock.ts';
/**
 * Field types and the builders models use to declare them. A field declaration is the single
 * source for the column DDL, input validation, JSON output, schema output and filter checks.
 */
export type FieldType =
  | 'serial'
  | 'integer'
  | 'double'
  | 'boolean'
  | 'string'
  | 'text'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'json'
  /** Bytes (Buffer), for service tables only: never read from or written to a client. */
  | 'binary';

export type OnDelete = 'CASCADE' | 'SET NULL' | 'RESTRICT';

export interface Reference {
  table: string;
  field: string;
  onDelete: OnDelete;
}

export type FieldValue = string | number | boolean | null | Record<string, unknown> | unknown[];

export interface FieldDef {
  type: FieldType;
  /** varchar length (type string). */
  length?: number;
  nullable: boolean;
  /** Database default, written into the DDL and shown by the schema endpoint. */
  default?: string | number | boolean;
  /** Value computed by the application when a record is created without this field. */
  initial?: (clock: BusinessClock) => FieldValue;
  primary?: boolean;
  /**
   * Filled by the store when absent on create, so not required: the next free number of this
   * column (`true`), or of another column the code must be unique across (a product's
   * `referencia` over all variants). See db/code-counter.ts.
   */
  generatedCode?: true | { table: string; column: string };
  /**
   * Filled by the model's own `beforeSave` hook when absent on create (a code the reference derives
   * from the description: see models/derived-code.ts), so not required of the client.
   */
  derivedCode?: true;
  unique?: boolean;
  references?: Reference;
  /** Never returned, never filterable or sortable (e.g. secrets). */
  hidden?: boolean;
  /** Never written through the generic API (computed by the service). */
  readOnly?: boolean;
  /**
   * Smallest and largest value a client may write (numbers). Unset, a double is limited to
   * +/- MAX_DOUBLE_INPUT and an integer to its 32-bit range; a serial key starts at 1.
   */
  min?: number;
  max?: number;
  /** The only values a client may write (a string field's vocabulary, e.g. a mode); else `invalid-value`. */
  values?: readonly string[];
  /**
   * Other spellings a client may write for a value of `values` (alias -> value), stored as the value
   * they name: a SEPA message version in full (`pain.008.001.08`), as banks write it. Read before
   * the length and vocabulary checks, so an alias may be longer than the column; matched exactly.
   */
  aliases?: Readonly<Record<string, string>>;
}

/**
 * Largest magnitude of a double written by a client unless the field declares its own range:
 * beyond it a double no longer holds cents, and products of two such values stay finite.
 */
export const MAX_DOUBLE_INPUT = 1e12;

/** Range of a currency conversion rate: positive, and small enough that dividing by it stays finite. */
export const RATE_RANGE = { min: 1e-6, max: 1e6 } as const;

type Options = Partial<Omit<FieldDef, 'type' | 'nullable'>> & { notNull?: boolean };

function make(type: FieldType, options: Options = {}): FieldDef {
  const { notNull, ...rest } = options;
  const def: FieldDef = { type, nullable: !(notNull || rest.primary), ...rest };
  return def;
}

/** Field builders: `f.string(10, { notNull: true })`, `f.boolean({ default: false })` ... */
export const f = {
  serial: (options: Options = {}) => make('serial', { primary: true, ...options }),
  integer: (options?: Options) => make('integer', options),
  double: (options?: Options) => make('double', options),
  boolean: (options?: Options) => make('boolean', options),
  string: (length: number, options?: Options) => make('string', { ...options, length }),
  text: (options?: Options) => make('text', options),
  date: (options?: Options) => make('date', options),
  time: (options?: Options) => make('time', options),
  timestamp: (options?: Options) => make('timestamp', options),
  json: (options?: Options) => make('json', options),
  binary: (options?: Options) => make('binary', options),
  /** A percentage (discounts, retentions): a double between 0 and 100. */
  percent: (options?: Options) => make('double', { min: 0, max: 100, ...options }),
  /** A reference to another table's column, with its ON DELETE rule. */
  ref: (table: string, field: string, onDelete: OnDelete): Reference => ({ table, field, onDelete }),
};

/** A map of field declarations (the `fields` of a model definition). */
export type Fields = Record<string, FieldDef>;

/** Fields in alphabetical order: the reference lists its columns so, and the schema output follows. */
export function sortedFields(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export const zero = () => 0;

/** Today's date as `YYYY-MM-DD` on the installation's wall clock (an `initial` for business dates). */
export function today(clock: BusinessClock): string {
  return clock.today().date;
}

/** The time of day as `HH:MM:SS` on the installation's wall clock, for `hora` columns. */
export function currentTime(clock: BusinessClock): string {
  return clock.today().time;
}

/**
 * Now as `YYYY-MM-DD HH:MM:SS` in UTC (technical timestamps: creation, activity, logs), from the
 * app's clock; without one (service bookkeeping such as migration records), from the system's.
 */
export function now(clock?: BusinessClock): string {
  return clock ? clock.timestamp() : new Date().toISOString().slice(0, 19).replace('T', ' ');
}
