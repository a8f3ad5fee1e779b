import type { FastifyRequest } from 'fastify';
import type { AppContext, RecordExpansion } from '../app-context.ts';
import { AppError } from '../errors.ts';
import type { Model } from '../models/define-model.ts';
import { isLegacy } from './profile.ts';

type Row = Record<string, unknown>;

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Whether the request's key may use a resource with a method (set by the access-control step):
     * what a read embeds is refused when the key could not read it on its own; the MCP server
     * offers its tools by it.
     */
    mayUse?: (resource: string, method: string) => boolean;
  }
}

/**
 * What a read asks to see of a model's records (docs/query-syntax.md): `fields=a,b` picks visible
 * fields (the primary key always comes), `expand=x,y` embeds what the model offers (one read per
 * page each). Checked against the model: an unknown field is 400 `invalid-field`, an unknown
 * expansion 400 `invalid-expand`, one of a resource the key may not read 403 `forbidden`. The
 * facturascripts profile reads as before: both are ignored there.
 */
export interface ReadView {
  fields?: string[];
  expand: Array<[string, RecordExpansion]>;
}

const listOf = (value: unknown): string[] => [value].flat().filter((item): item is string => typeof item === 'string').flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean);

/** `presented`: what the model's presenter adds to a record (`verifactu`, `download` ...), which `fields` may name too. */
export function readViewOf(ctx: AppContext, model: Model, request: FastifyRequest, presented: readonly string[] = []): ReadView {
  if (isLegacy(request)) return { expand: [] };
  const query = request.query as Record<string, unknown>;
  for (const parameter of Object.keys(query)) {
    if (/^(fields|expand)\[/.test(parameter)) throw new AppError(parameter.startsWith('fields') ? 'invalid-field' : 'invalid-expand', { parameter });
  }
  const offered = ctx.expansions.get(model) ?? {};
  const expand = [...new Set(listOf(query.expand))].map((name): [string, RecordExpansion] => {
    const expansion = Object.hasOwn(offered, name) ? offered[name] : undefined;
    if (!expansion) throw new AppError('invalid-expand', { expand: name, supported: Object.keys(offered) });
    if (request.mayUse && !request.mayUse(expansion.resource, 'GET')) throw new AppError('forbidden', { expand: name });
    return [name, expansion];
  });
  if (query.fields === undefined) return { expand };
  const fields = [...new Set(listOf(query.fields))];
  if (!fields.length) throw new AppError('invalid-field', { parameter: 'fields' });
  for (const field of fields) {
    const visible = (Object.hasOwn(model.fields, field) && !model.hidden.has(field)) || presented.includes(field);
    if (!visible && !expand.some(([name]) => name === field)) throw new AppError('invalid-field', { field, parameter: 'fields' });
  }
  return { fields: [model.primaryKey, ...fields.filter((field) => field !== model.primaryKey)], expand };
}

/** Whether the presenter's additions are wanted (not when `fields` names none of them): its reads are spared otherwise. */
export const wantsPresented = (view: ReadView, presented: readonly string[]): boolean => !view.fields || view.fields.some((field) => presented.includes(field));

/** Applies a view to a page of records: the expansions attached, then the fields picked (expansions kept). */
export async function applyReadView(view: ReadView, records: Row[]): Promise<Row[]> {
  let rows = records;
  for (const [, expansion] of view.expand) rows = await expansion.attach(rows);
  if (!view.fields) return rows;
  const keep = new Set([...view.fields, ...view.expand.map(([name]) => name)]);
  return rows.map((row) => Object.fromEntries(Object.entries(row).filter(([name]) => keep.has(name))));
}

/** Whether a view changes the answer (an ETag must then differ from the plain record's). */
export const viewKey = (view: ReadView): string =>
  (view.fields || view.expand.length ? JSON.stringify([view.fields ? view.fields.slice(1).sort() : null, view.expand.map(([name]) => name).sort()]) : '');
