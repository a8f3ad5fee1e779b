import { fieldErrors } from '../../errors.ts';
import type { DbExecutor } from '../../db/database.ts';
import { coerceValue } from '../../models/coerce.ts';
import { f, type FieldDef, type FieldValue } from '../../models/fields.ts';
import { ABSENT_FROM_OLDER_INSTALLATIONS, DEFAULT_SETTINGS } from './default-settings.ts';
import { isTimeZone } from '../../clock.ts';
import type { Settings } from '../../settings.ts';

export type { Settings };

interface SettingRule {
  field: FieldDef;
  /** The value must be one of these. */
  oneOf?: readonly string[];
  /** The value must name a row of this table's column. */
  exists?: { table: string; column: string };
  /** Any other check of the value. */
  valid?: (value: string | number | boolean) => boolean;
}

/**
 * The known keys of the `default` group: their types and limits, declared once. A write that
 * breaks one is refused with 422 naming the key (`properties.decimals`), so that no stored value
 * can break document creation later.
 */
const RULES: Readonly<Record<string, SettingRule>> = Object.assign(Object.create(null) as Record<string, SettingRule>, {
  enable_api: { field: f.boolean({ notNull: true }) },
  decimals: { field: f.integer({ notNull: true, min: 0, max: 6 }) },
  taxcalculationmethod: { field: f.string(20, { notNull: true }), oneOf: ['classic', 'price-adjusted'] },
  idempresa: { field: f.integer({ notNull: true, min: 1 }), exists: { table: 'empresas', column: 'idempresa' } },
  codalmacen: { field: f.string(4, { notNull: true }), exists: { table: 'almacenes', column: 'codalmacen' } },
  codpais: { field: f.string(20, { notNull: true }), exists: { table: 'paises', column: 'codpais' } },
  coddivisa: { field: f.string(3, { notNull: true }), exists: { table: 'divisas', column: 'coddivisa' } },
  codimpuesto: { field: f.string(10), exists: { table: 'impuestos', column: 'codimpuesto' } },
  codpago: { field: f.string(10, { notNull: true }), exists: { table: 'formaspago', column: 'codpago' } },
  codserie: { field: f.string(4, { notNull: true }), exists: { table: 'series', column: 'codserie' } },
  codserierec: { field: f.string(4, { notNull: true }), exists: { table: 'series', column: 'codserie' } },
  codretencion: { field: f.string(10), exists: { table: 'retenciones', column: 'codretencion' } },
  tipoidfiscal: { field: f.string(25, { notNull: true }) },
  regimeniva: { field: f.string(20, { notNull: true }) },
  updatesupplierprices: { field: f.boolean({ notNull: true }) },
  validate_iban: { field: f.boolean({ notNull: true }) },
  ventasinstock: { field: f.boolean({ notNull: true }) },
  api_profile: { field: f.string(20, { notNull: true }), oneOf: ['spec', 'facturascripts'] },
  defaultplan: { field: f.boolean({ notNull: true }) },
  langcode: { field: f.string(10, { notNull: true }) },
  timezone: { field: f.string(50, { notNull: true }), valid: (value: string | number | boolean) => isTimeZone(String(value)) },
});

/**
 * JSON Schema of the `default` group's known keys, derived from the rules above (the OpenAPI
 * component `settings.default`, from which the admin console builds its Settings form). A key
 * naming a record carries `x-references` (`series.codserie`); null removes a key.
 */
export function settingsSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(RULES)) {
    const { field } = rule;
    const type = field.type === 'boolean' ? 'boolean' : field.type === 'integer' ? 'integer' : 'string';
    properties[key] = {
      type: [type, 'null'],
      ...(field.length && type === 'string' ? { maxLength: field.length } : {}),
      ...(field.min !== undefined ? { minimum: field.min } : {}),
      ...(field.max !== undefined ? { maximum: field.max } : {}),
      ...(rule.oneOf ? { enum: [...rule.oneOf, null] } : {}),
      ...(rule.exists ? { 'x-references': `${rule.exists.table}.${rule.exists.column}` } : {}),
      default: DEFAULT_SETTINGS[key] ?? null,
    };
  }
  return { type: 'object', description: 'The `default` group\'s known keys (other keys are kept as given).', properties, additionalProperties: true };
}

/**
 * Checks and normalises the keys a write sets (`"yes"` becomes true, `"2"` becomes 2); returns
 * the reasons per `properties.<key>` for those it refuses. A null removes a key (its default
 * applies again), so it is always accepted.
 */
export async function checkSettings(db: DbExecutor, incoming: Record<string, unknown>): Promise<Record<string, string>> {
  const errors = fieldErrors();
  for (const [key, raw] of Object.entries(incoming)) {
    const rule = Object.hasOwn(RULES, key) ? RULES[key]! : undefined;
    if (!rule || raw === null) continue;
    const name = `properties.${key}`;
    const coerced = coerceValue(rule.field, raw, 'json');
    if (!coerced.ok) {
      errors[name] = coerced.reason;
      continue;
    }
    if (coerced.value === null) continue;
    if ((rule.oneOf && !rule.oneOf.includes(String(coerced.value))) || (rule.valid && !rule.valid(coerced.value as string))) {
      errors[name] = 'invalid-value';
      continue;
    }
    if (!(await namesExistingRecord(db, key, coerced.value))) {
      errors[name] = 'not-found';
      continue;
    }
    incoming[key] = coerced.value as FieldValue;
  }
  return errors;
}

/**
 * Whether a setting's value names a record that exists (`codserie` -> a serie), for the keys that
 * name records; true for the others.
 */
export async function namesExistingRecord(db: DbExecutor, key: string, value: unknown): Promise<boolean> {
  const exists = Object.hasOwn(RULES, key) ? RULES[key]!.exists : undefined;
  if (!exists) return true;
  const found = await db.selectFrom(exists.table).select(exists.column).where(exists.column, '=', value as string | number).executeTakeFirst();
  return found !== undefined;
}

/** The typed view of a stored `default` group: known keys typed, missing or unreadable ones defaulted. */
export function readSettings(stored: Record<string, unknown> | undefined): Settings {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS, ...ABSENT_FROM_OLDER_INSTALLATIONS, ...stored };
  for (const [key, rule] of Object.entries(RULES)) {
    const coerced = coerceValue(rule.field, settings[key] ?? null, 'json');
    const valid = coerced.ok && (coerced.value !== null || rule.field.nullable) && (!rule.oneOf || rule.oneOf.includes(String(coerced.value)))
      && (coerced.value === null || !rule.valid || rule.valid(coerced.value as string));
    settings[key] = valid ? coerced.value : DEFAULT_SETTINGS[key] ?? null;
  }
  return Object.freeze(settings) as Settings;
}

/** A settings group's properties as stored (the `email` group ...), {} when there is none; secrets included: for the service's own use. */
export async function settingsGroup(db: DbExecutor, name: string): Promise<Record<string, unknown>> {
  const row = await db.selectFrom('settings').select('properties').where('name', '=', name).executeTakeFirst();
  const properties = typeof row?.properties === 'string' ? JSON.parse(row.properties) : row?.properties;
  return properties && typeof properties === 'object' && !Array.isArray(properties) ? (properties as Record<string, unknown>) : {};
}
