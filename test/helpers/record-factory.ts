import { isRequiredOnCreate, type Model } from '../../src/models/define-model.ts';
import type { FieldDef } from '../../src/models/fields.ts';
import { handmadePng } from './png.ts';
import { multipart, type TestApp } from './test-app.ts';

/** A 2 x 2 PNG, the file of records created by upload (any image check passes). */
export function samplePng(): Buffer {
  return handmadePng(2, 2);
}

/**
 * Creates a record through the model's API: JSON, or for models whose records are uploads
 * (attached files) a multipart upload of a sample PNG with the values as form fields.
 */
export async function createRecord(t: TestApp, model: Model, values: Record<string, unknown>): Promise<{ status: number; body: any }> {
  if (!t.app.ctx.writers.get(model)?.streamsFiles) return t.call('POST', `/api/3/${model.resource}`, values);
  const fields = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
  const answer = await t.request({ method: 'POST', url: `/api/3/${model.resource}`, ...multipart(fields, [{ field: 'file', name: 'sample.png', type: 'image/png', content: samplePng() }]) });
  return { status: answer.statusCode, body: answer.json() };
}

let sequence = 0;

/** A short unique code that fits `length` and the reference's code alphabet. */
function code(length: number): string {
  sequence += 1;
  const text = `T${sequence.toString(36).toUpperCase()}`;
  return text.length <= length ? text.padEnd(Math.min(length, 3), '0') : text.slice(-length);
}

function sampleValue(name: string, field: FieldDef): unknown {
  switch (field.type) {
    case 'string':
      if (field.values) return field.values[0];
      if (/email/.test(name)) return `t${++sequence}@example.com`;
      // Document numbers are numeric text (the series counter).
      if (name === 'numero') return String(++sequence);
      return code(field.length ?? 10);
    case 'text':
      return `text ${++sequence}`;
    case 'integer':
      return 1;
    case 'double':
      return 1.5;
    case 'boolean':
      return false;
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'time':
      return '10:20:30';
    case 'timestamp':
      return new Date().toISOString().slice(0, 19).replace('T', ' ');
    case 'json':
      return { sample: true };
    default:
      return undefined;
  }
}

/**
 * What a model's own rules pin down: values to set, or a function of the record built so far that
 * returns the record to send (for values that depend on its parents, e.g. a sub-account's code).
 */
export type Fix = Record<string, unknown> | ((record: Record<string, unknown>, t: TestApp) => Promise<Record<string, unknown>>);

/**
 * A valid record for `model`, built from its declaration: required fields get sample values,
 * required references point at an existing row of the target (default data) or at one created
 * for the purpose. `fixes` holds the few values a model's own rules pin down (e.g. an enum).
 */
export async function buildRecord(t: TestApp, model: Model, fixes: Record<string, Fix>, depth = 0): Promise<Record<string, unknown>> {
  const { registry } = t.app.ctx;
  const record: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(model.fields)) {
    if (field.type === 'serial' || field.readOnly) continue;
    if (field.references) {
      if (field.nullable) continue;
      const target = registry.byTable(field.references.table)!;
      const existing = await t.call('GET', `/api/3/${target.resource}?limit=1`);
      let row = existing.body?.[0];
      if (!row) {
        if (depth > 5) throw new Error(`cannot build a parent for ${model.table}.${name}`);
        const parent = await createRecord(t, target, await buildRecord(t, target, fixes, depth + 1));
        if (parent.status !== 201) throw new Error(`parent ${target.resource}: ${JSON.stringify(parent.body)}`);
        row = parent.body;
      }
      record[name] = row[field.references.field];
      continue;
    }
    if (isRequiredOnCreate(field) || (field.primary && !field.generatedCode)) record[name] = sampleValue(name, field);
  }
  // A model with no required field still needs a body: give it its plain descriptive field.
  const descriptive = updatableField(model);
  if (!Object.keys(record).length && descriptive) record[descriptive] = `sample ${++sequence}`;
  const fix = fixes[model.resource];
  return typeof fix === 'function' ? fix(record, t) : { ...record, ...fix };
}

/** The value the generic test writes when it updates a record. */
export const UPDATED_TEXT = 'changed';

const DESCRIPTIVE = ['nombre', 'descripcion', 'observaciones', 'description', 'message', 'tipodoc'];

/**
 * A field the generic test may change: plain text, not a key, not unique, not computed; a free-text
 * field (observaciones, descripcion, nombre ...) when the model has one.
 */
export function updatableField(model: Model): string | undefined {
  const unique = new Set((model.unique ?? []).flat());
  const candidates = Object.entries(model.fields)
    .filter(
      ([name, field]) =>
        !field.primary && !field.readOnly && !field.hidden && !field.references && !field.unique && !field.values && !unique.has(name) &&
        (field.type === 'text' || (field.type === 'string' && (field.length ?? 0) >= 20)),
    )
    .map(([name]) => name);
  return DESCRIPTIVE.find((name) => candidates.includes(name)) ?? candidates[0];
}
