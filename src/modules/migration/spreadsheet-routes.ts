import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError, validationError } from '../../errors.ts';
import { MultipartStream } from '../../http/multipart-stream.ts';
import { addResourceRoute, type Handler, type OperationDoc } from '../../http/resource-route.ts';
import { filesOf, receiveUpload } from '../files/index.ts';
import { importSheet, SHEET_MODES, type SheetMode, type SheetTarget } from './spreadsheet-import.ts';
import { fileColumns, fileRows, jsonRows, MAX_ROWS, sheetKind } from './spreadsheet-rows.ts';

/** The resources a spreadsheet fills, each with the column that names its records. */
const TARGETS: Record<string, { code: string }> = {
  cliente: { code: 'codcliente' },
  proveedor: { code: 'codproveedor' },
  producto: { code: 'referencia' },
  contacto: { code: 'idcontacto' },
};

const truthy = (value: unknown) => value === true || ['1', 'true', 'on', 'yes', 'si', 'sí'].includes(String(value ?? '').trim().toLowerCase());

function optionsOf(query: Record<string, unknown>, fields: Record<string, unknown>): { modo: SheetMode; dryrun: boolean } {
  const modo = String(fields.modo ?? query.modo ?? 'crear').trim().toLowerCase();
  if (!SHEET_MODES.includes(modo as SheetMode)) throw validationError({ modo: 'invalid-value' }, { accepted: { modo: [...SHEET_MODES] } });
  return { modo: modo as SheetMode, dryrun: truthy(fields.dryrun ?? query.dryrun) };
}

/**
 * `POST /api/3/importar/{cliente|proveedor|producto|contacto}` (docs/migration.md, "Spreadsheets"):
 * a CSV or XLSX file (multipart field `file`) or JSON rows (an array, or `{"filas": [...]}`),
 * written as the resource's own API writes them, all or nothing (spreadsheet-import.ts). `modo`
 * (`crear` default, `actualizar`, `ambos`) says what a row does with the record its key names;
 * `dryrun=1` checks every row and writes nothing. The key's rules apply to the resource itself:
 * creating needs POST on it, updating PUT, beside the rule on `importar`.
 */
export function registerSpreadsheetRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('importar');
  const handler: Handler = async (request) => {
    const name = ctx.registry.canonical(String((request.params as { resource?: string }).resource ?? ''));
    const found = TARGETS[name];
    const model = found ? ctx.registry.get(name) : undefined;
    if (!found || !model) throw new AppError('resource-not-found', { resource: name, accepted: Object.keys(TARGETS) });
    const target: SheetTarget = { model, code: found.code };
    const query = request.query as Record<string, unknown>;
    if (request.body instanceof MultipartStream) {
      const { limits, spoolDir } = filesOf(ctx);
      const upload = await receiveUpload(request.body, limits, spoolDir, (field) => field === 'file');
      try {
        const file = upload.files[0];
        if (!file) throw new AppError('file-required');
        const options = optionsOf(query, upload.fields);
        allowed(request, model.resource, options.modo);
        const kind = sheetKind(file.mimetype, file.name);
        const columns = await fileColumns(file.tmp, kind, model, found.code);
        const rows = fileRows(file.tmp, kind, model, found.code);
        return await importSheet(ctx, target, rows, { ...options, source: 'json', columns, claim: request.idempotency?.claim });
      } finally {
        await upload.discard();
      }
    }
    const body = request.body;
    const fields = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    const given = Array.isArray(body) ? body : fields.filas;
    if (!Array.isArray(given)) throw new AppError('file-required');
    const options = optionsOf(query, fields);
    allowed(request, model.resource, options.modo);
    const { columns, rows } = jsonRows(given, model, found.code);
    return importSheet(ctx, target, rows, { ...options, source: 'json', columns, claim: request.idempotency?.claim });
  };
  const doc: OperationDoc = {
    summary: 'Import customers, suppliers, products or contacts from a CSV or XLSX file (multipart `file`) or JSON rows, all or nothing',
    description: `Columns by header: field names, or the established system's list headers. \`modo\`: \`crear\` (default), \`actualizar\` or \`ambos\`, by the record's key (a product's \`referencia\`). \`dryrun=1\` checks every row and writes nothing. Up to ${MAX_ROWS.toLocaleString('en-US')} rows. Any problem: 422 \`import-rows-refused\` with \`problemas: [{fila, campo, error}]\` and nothing written.`,
    response: { type: 'object', properties: { resource: { type: 'string' }, modo: { type: 'string' }, dryrun: { type: 'boolean' }, filas: { type: 'integer' }, creados: { type: 'integer' }, actualizados: { type: 'integer' }, ignoradas: { type: 'array', items: { type: 'string' } } } },
  };
  addResourceRoute(app, {
    resource: 'importar', urls: ['/api/3/importar/:resource'],
    methods: { POST: { handler, streamsFiles: true, openapi: doc } },
  });
}

/** Refuses (403 `forbidden`) an import the key could not do through the resource itself. */
function allowed(request: FastifyRequest, resource: string, modo: SheetMode): void {
  if (!request.mayUse) return;
  const needs = modo === 'crear' ? ['POST'] : modo === 'actualizar' ? ['PUT'] : ['POST', 'PUT'];
  for (const method of needs) if (!request.mayUse(resource, method)) throw new AppError('forbidden', { resource, method });
}
