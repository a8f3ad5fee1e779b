import { isRequiredOnCreate, type Model } from './define-model.ts';
import type { FieldDef } from './fields.ts';

/** `GET /api/3/{model}/schema`: per visible field, its type and constraints, derived from the model. */
export function schemaOutput(model: Model): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of model.visibleFields) {
    const field = model.fields[name]!;
    out[name] = {
      type: field.type,
      length: field.length ?? null,
      nullable: field.nullable,
      is_nullable: field.nullable ? 'YES' : 'NO',
      default: field.default ?? null,
      primary_key: Boolean(field.primary),
      required: isRequiredOnCreate(field),
      read_only: Boolean(field.readOnly),
      references: field.references ? `${field.references.table}.${field.references.field}` : null,
      ...(field.values ? { values: field.values } : {}),
      ...(field.aliases ? { aliases: field.aliases } : {}),
    };
  }
  return out;
}

function jsonType(field: FieldDef): string {
  switch (field.type) {
    case 'serial':
    case 'integer':
      return 'integer';
    case 'double':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'json':
      return 'object';
    default:
      return 'string';
  }
}

/**
 * JSON Schema of a record as the API shows it. Used as Fastify's response schema: fast
 * serialisation, and a second guarantee that no hidden field is ever written out.
 */
export function recordJsonSchema(model: Model): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const name of model.visibleFields) {
    const field = model.fields[name]!;
    const type = jsonType(field);
    properties[name] =
      type === 'object' ? { type: ['object', 'array', 'null'], additionalProperties: true, items: {} } : { type: [type, 'null'] };
  }
  return { type: 'object', properties, additionalProperties: false };
}
