import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse } from 'csv-parse';
import type ExcelTypes from 'exceljs';
import { lazyLibrary } from '../../lazy-library.ts';
import { AppError } from '../../errors.ts';
import type { Model } from '../../models/define-model.ts';

/** Loaded with the first spreadsheet read (its bundle is megabytes: docs/performance.md, memory at rest). */
const excel = lazyLibrary<typeof ExcelTypes>('exceljs');

/**
 * The rows of a spreadsheet to import (`POST /api/3/importar/{resource}`, docs/migration.md): a CSV
 * (`,` or `;`, with or without the BOM the established system writes) or an XLSX file (its first
 * sheet), read as a stream, or rows given as JSON. The first row of a file names the columns: our
 * field names, or the established system's list headers (`Código`, `CIF/NIF`, `Razón social` ...),
 * matched without case, accents or punctuation.
 */

type Cell = string | number | boolean | null;

/** A row of the sheet: its number as a person reads the sheet (the header is row 1), and its cells by field. */
export interface SheetRow {
  fila: number;
  values: Record<string, Cell>;
}

/** How the sheet's columns map to the model's fields. */
export interface SheetColumns {
  /** Column position -> field; undefined for a column that is ignored (a read-only field). */
  fields: Array<string | undefined>;
  /** Columns of read-only fields (computed by the service): read past, said in the answer. */
  ignored: string[];
  /** Headers that name no field: each a problem of row 1. */
  unknown: string[];
}

/** At most this many rows a file (issue 56); past it the import is refused, nothing written. */
export const MAX_ROWS = 100_000;

const normal = (text: string) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]/g, '');

/** The established system's list and export headers (Spanish and English) that are not field names. */
const HEADERS: Record<string, string> = {
  cif: 'cifnif', nif: 'cifnif', cifnif: 'cifnif', dni: 'cifnif', taxid: 'cifnif', razonsocial: 'razonsocial', businessname: 'razonsocial',
  telefono: 'telefono1', phone: 'telefono1', telefono2: 'telefono2', correo: 'email', correoelectronico: 'email', mail: 'email', name: 'nombre',
  descripcion: 'descripcion', description: 'descripcion', precio: 'precio', price: 'precio', observaciones: 'observaciones', notes: 'observaciones',
  apellidos: 'apellidos', surname: 'apellidos', direccion: 'direccion', address: 'direccion', ciudad: 'ciudad', city: 'ciudad', provincia: 'provincia',
  codigopostal: 'codpostal', cp: 'codpostal', zipcode: 'codpostal', pais: 'codpais', country: 'codpais', web: 'web', fechaalta: 'fechaalta',
  baja: 'debaja', grupo: 'codgrupo', familia: 'codfamilia', fabricante: 'codfabricante', impuesto: 'codimpuesto', tax: 'codimpuesto',
  codigobarras: 'codbarras', barcode: 'codbarras', coste: 'coste', cost: 'coste', stock: 'stockfis',
};

/** The field a header names in `model`: its own name, the record's code (`Código`, `Code`, `Referencia`), or an established header. */
function fieldOf(model: Model, code: string, header: string): string | undefined {
  const key = normal(header);
  if (!key) return undefined;
  const own = Object.keys(model.fields).find((name) => normal(name) === key);
  if (own) return own;
  if (['codigo', 'code', 'cod', 'referencia', 'reference', 'ref'].includes(key)) return code;
  const named = HEADERS[key];
  return named && Object.hasOwn(model.fields, named) ? named : undefined;
}

/**
 * Fields the service keeps from the books that the model still lets a client write (the
 * established system's API did): an export carries them as they were, an import must not put
 * them back (a customer's reached risk, a product's stock total).
 */
const COMPUTED = new Set(['riesgoalcanzado', 'stockfis']);

export function columnsOf(model: Model, code: string, headers: readonly string[]): SheetColumns {
  const columns: SheetColumns = { fields: [], ignored: [], unknown: [] };
  for (const header of headers) {
    const field = fieldOf(model, code, header);
    if (!field) {
      if (String(header).trim() !== '') columns.unknown.push(String(header));
      columns.fields.push(undefined);
    } else if (model.fields[field]!.readOnly || model.hidden.has(field) || COMPUTED.has(field)) {
      // Exports carry what the service computes (a customer's risk, a product's stock): read past.
      columns.ignored.push(String(header));
      columns.fields.push(undefined);
    } else {
      columns.fields.push(field);
    }
  }
  return columns;
}

/** A cell as the import passes it on: text, a number, a boolean, a date as `YYYY-MM-DD`; an empty cell is none. */
function cellOf(value: unknown): Cell | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    // exceljs: formulas (their result), rich text (its runs), hyperlinks (their text).
    const cell = value as { result?: unknown; richText?: Array<{ text: string }>; text?: unknown };
    if ('result' in cell) return cellOf(cell.result);
    if (cell.richText) return cell.richText.map((run) => run.text).join('');
    if (cell.text !== undefined) return cellOf(cell.text);
    return undefined;
  }
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}

function rowOf(columns: SheetColumns, cells: readonly unknown[], fila: number): SheetRow {
  const values: Record<string, Cell> = {};
  columns.fields.forEach((field, index) => {
    if (!field) return;
    const cell = cellOf(cells[index]);
    if (cell !== undefined) values[field] = cell;
  });
  return { fila, values };
}

/** The delimiter the header line uses most: `;` (the established system's exports), `,` or a tab. */
async function delimiterOf(file: string): Promise<string> {
  const handle = await open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(65_536), 0, 65_536, 0);
    const header = buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0] ?? '';
    const counts = [';', ',', '\t'].map((delimiter) => [delimiter, header.split(delimiter).length] as const);
    return counts.reduce((best, next) => (next[1] > best[1] ? next : best))[0];
  } finally {
    await handle.close();
  }
}

/**
 * The kind of a spooled upload, by the type its bytes were judged to be (receive-upload.ts: an XLSX
 * is a zip of a workbook) and then its name.
 */
export function sheetKind(mimetype: string, name: string): 'xlsx' | 'csv' {
  if (mimetype === 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' || mimetype === 'application/zip') return 'xlsx';
  if (/\.xlsx$/i.test(name)) throw new AppError('validation-failed', { fields: { file: 'invalid-xlsx' } });
  return 'csv';
}

/**
 * Reads a spooled file through, every row as the import will (past `MAX_ROWS`, or unreadable: refused
 * before anything is written), and answers the columns of its header.
 */
export async function fileColumns(file: string, kind: 'xlsx' | 'csv', model: Model, code: string): Promise<SheetColumns> {
  let columns: SheetColumns = { fields: [], ignored: [], unknown: [] };
  for await (const _row of fileRows(file, kind, model, code, (read) => (columns = read)));
  return columns;
}

/**
 * The rows of a spooled file, streamed, with the columns of its header (`onColumns`, before the
 * first row). Past `MAX_ROWS` rows: refused (`too-many-rows`).
 */
export async function* fileRows(file: string, kind: 'xlsx' | 'csv', model: Model, code: string, onColumns?: (columns: SheetColumns) => void): AsyncGenerator<SheetRow> {
  let columns: SheetColumns | undefined;
  let count = 0;
  const take = (cells: unknown[], fila: number): SheetRow | undefined => {
    if (!columns) {
      columns = columnsOf(model, code, cells.map((cell) => String(cellOf(cell) ?? '')));
      onColumns?.(columns);
      return undefined;
    }
    if (!cells.some((cell) => cellOf(cell) !== undefined)) return undefined;
    if (++count > MAX_ROWS) throw new AppError('validation-failed', { fields: { file: 'too-many-rows' }, limit: MAX_ROWS });
    return rowOf(columns, cells, fila);
  };
  if (kind === 'csv') {
    const input = createReadStream(file);
    const parser = input.pipe(parse({ bom: true, delimiter: await delimiterOf(file), relax_column_count: true, relax_quotes: true, skip_empty_lines: false, info: true }));
    try {
      for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        const row = take(record.record, record.info.lines);
        if (row) yield row;
      }
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError('validation-failed', { fields: { file: 'invalid-csv' }, reason: (error as Error).message });
    } finally {
      // Read to the end or left early (a refused row, too many rows): the file is closed either way.
      parser.destroy();
      input.destroy();
    }
  } else {
    const input = createReadStream(file);
    const reader = new (excel().stream.xlsx.WorkbookReader)(input, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore' });
    try {
      for await (const sheet of reader) {
        for await (const row of sheet as AsyncIterable<ExcelTypes.Row>) {
          // exceljs numbers a row's cells from 1, leaving index 0 empty.
          const cells = Array.isArray(row.values) ? row.values.slice(1) : [];
          const taken = take(cells, row.number);
          if (taken) yield taken;
        }
        break; // the first sheet only
      }
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError('validation-failed', { fields: { file: 'invalid-xlsx' }, reason: (error as Error).message });
    } finally {
      input.destroy();
    }
  }
  if (!columns) throw new AppError('validation-failed', { fields: { file: 'empty' } });
}

/** Rows given as JSON (an array of objects): numbered from 1, their members matched as a file's headers. */
export function jsonRows(rows: unknown[], model: Model, code: string): { columns: SheetColumns; rows: SheetRow[] } {
  if (rows.length > MAX_ROWS) throw new AppError('validation-failed', { fields: { filas: 'too-many-rows' }, limit: MAX_ROWS });
  const headers = [...new Set(rows.flatMap((row) => (row && typeof row === 'object' && !Array.isArray(row) ? Object.keys(row) : [])))];
  const columns = columnsOf(model, code, headers);
  return {
    columns,
    rows: rows.map((row, index) => {
      if (!row || typeof row !== 'object' || Array.isArray(row)) throw new AppError('validation-failed', { fields: { filas: 'invalid-row' }, fila: index + 1 });
      return rowOf(columns, headers.map((header) => (row as Record<string, unknown>)[header]), index + 1);
    }),
  };
}
