import { isRequiredOnCreate, type Model } from '../../models/define-model.ts';
import type { FieldDef } from '../../models/fields.ts';

/**
 * What a field takes beyond what it shows: its aliases too (stored as the value they name), and
 * no `maxLength`, since an alias may be longer than the column and the enum bounds it anyway.
 */
function inputString(field: FieldDef): Record<string, unknown> {
  const aliases = Object.entries(field.aliases ?? {});
  const values = [...(field.values ?? []), ...aliases.map(([alias]) => alias), ...(field.nullable ? [null] : [])];
  const stored = aliases.map(([alias, value]) => `\`${alias}\` (${value})`).join(', ');
  return { type: 'string', enum: values, description: `Aliases taken too, stored as the value they name: ${stored}.` };
}

/** JSON Schema 2020-12 (OpenAPI 3.1) of one field as the API shows it, or (`input`) takes it. */
export function fieldSchema(field: FieldDef, input = false): Record<string, unknown> {
  const base: Record<string, unknown> = (() => {
    switch (field.type) {
      case 'serial':
      case 'integer':
        return { type: 'integer' };
      case 'double':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'json':
        return { type: ['object', 'array'] };
      case 'date':
        return { type: 'string', format: 'date' };
      case 'time':
        return { type: 'string', pattern: '^\\d{2}:\\d{2}(:\\d{2})?$' };
      case 'timestamp':
        return { type: 'string', description: 'YYYY-MM-DD HH:MM:SS (UTC)' };
      case 'string':
        if (input && field.aliases) return inputString(field);
        return { type: 'string', ...(field.length ? { maxLength: field.length } : {}), ...(field.values ? { enum: field.nullable ? [...field.values, null] : [...field.values] } : {}) };
      default:
        return { type: 'string' };
    }
  })();
  if (field.nullable) base.type = [...(Array.isArray(base.type) ? base.type : [base.type]), 'null'];
  if (field.readOnly || field.type === 'serial') base.readOnly = true;
  if (field.default !== undefined) base.default = field.default;
  if (field.references) base.description = `References ${field.references.table}.${field.references.field}.`;
  return base;
}

/** A record of the model as answers carry it (visible fields only). */
export function recordSchema(model: Model): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const name of model.visibleFields) properties[name] = fieldSchema(model.fields[name]!);
  return { type: 'object', properties };
}

/** What a creation takes: the writable fields, those without a default required. */
export function inputSchema(model: Model): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const name of model.visibleFields) {
    const field = model.fields[name]!;
    if (field.readOnly || field.type === 'serial') continue;
    const { readOnly: _, ...schema } = fieldSchema(field, true);
    properties[name] = schema;
    if (isRequiredOnCreate(field)) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
