import { isRequiredOnCreate, type Model } from '../../models/define-model.ts';
import type { FieldDef } from '../../models/fields.ts';

/** JSON Schema 2020-12 (OpenAPI 3.1) of one field as the API shows and takes it. */
export function fieldSchema(field: FieldDef): Record<string, unknown> {
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
    const { readOnly: _, ...schema } = fieldSchema(field);
    properties[name] = schema;
    if (isRequiredOnCreate(field)) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
