import type { AppContext, RecordExpansion } from '../../app-context.ts';
import { rowReader } from '../../db/row-codec.ts';
import type { Model } from '../../models/define-model.ts';
import { recordJsonSchema } from '../../models/schema-output.ts';
import { proveedorModel } from '../contacts/index.ts';
import { customerModel } from '../customers/index.ts';
import { visible, type Row } from './document-repository.ts';
import { DOCUMENT_TYPES, type DocumentType } from './document-types.ts';

/** A page's values of one column, each once, without nulls. */
const valuesOf = (records: readonly Row[], column: string) => [...new Set(records.map((record) => record[column]).filter((value) => value !== null && value !== undefined))];

/** Reads in slices small enough for any engine's bound parameters. */
async function inSlices<T>(values: readonly unknown[], read: (slice: unknown[]) => Promise<T[]>): Promise<T[]> {
  const found: T[] = [];
  for (let start = 0; start < values.length; start += 500) found.push(...(await read(values.slice(start, start + 500))));
  return found;
}

/** A document's lines embedded (`expand=lineas`): the page's lines in one read, each document's in id order. */
function linesExpansion(ctx: AppContext, type: DocumentType): RecordExpansion {
  const read = rowReader(type.line);
  return {
    resource: type.line.resource,
    schema: { type: 'array', items: recordJsonSchema(type.line) },
    async attach(records) {
      const ids = valuesOf(records, type.key);
      const rows = await inSlices(ids, (slice) => ctx.database.kysely.selectFrom(type.line.table).selectAll().where(type.key, 'in', slice as number[]).orderBy(type.key).orderBy('idlinea').execute());
      const byDocument = Map.groupBy(rows.map(read), (line) => Number(line[type.key]));
      return records.map((record) => ({ ...record, lineas: (byDocument.get(Number(record[type.key])) ?? []).map((line) => visible(type.line, line)) }));
    },
  };
}

/** The document's customer or supplier embedded (`expand=cliente` / `expand=proveedor`), the page's in one read. */
function subjectExpansion(ctx: AppContext, model: Model, key: string, name: string): RecordExpansion {
  const read = rowReader(model);
  return {
    resource: model.resource,
    schema: { ...recordJsonSchema(model), type: ['object', 'null'] },
    async attach(records) {
      const codes = valuesOf(records, key);
      const rows = await inSlices(codes, (slice) => ctx.database.kysely.selectFrom(model.table).selectAll().where(model.primaryKey, 'in', slice as string[]).execute());
      const byCode = new Map(rows.map(read).map((row) => [String(row[model.primaryKey]), visible(model, row)]));
      return records.map((record) => ({ ...record, [name]: byCode.get(String(record[key])) ?? null }));
    },
  };
}

/** What documents' generic reads embed on request (http/read-view.ts, docs/query-syntax.md). */
export function registerDocumentExpansions(ctx: AppContext): void {
  for (const type of DOCUMENT_TYPES) {
    const subject = type.side === 'sales' ? subjectExpansion(ctx, customerModel, 'codcliente', 'cliente') : subjectExpansion(ctx, proveedorModel, 'codproveedor', 'proveedor');
    ctx.expansions.set(type.header, { lineas: linesExpansion(ctx, type), [type.side === 'sales' ? 'cliente' : 'proveedor']: subject });
  }
}
