import { AppError } from '../../errors.ts';
import { exportTypeOf } from './document-file.ts';
import { EXPORT_TYPES, EXPORTERS, type Exporter } from './exporters.ts';

/** The query of an export: which exporter, which print format (`undefined`: automatic), which language. */
export interface ExportRequest {
  type: string;
  exporter: Exporter;
  format?: number;
  lang?: string;
  /** `firmada=1`: the e-invoice signed (a Facturae's XAdES, for FACe). */
  signed?: boolean;
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new AppError('duplicate-parameter', { parameter: name });
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Reads `type` (case-insensitive, default `PDF`, `XLS` = `XLSX`), `format` (a format id; absent or
 * 0 = the document's automatic format), `lang` (any code: an unknown one falls back later,
 * never fails) and `firmada` (`1`/`true`: the e-invoice signed). An unknown type is refused, unlike the reference, which printed a PDF instead.
 */
export function readExportRequest(query: Record<string, unknown>): ExportRequest {
  const known = exportTypeOf(single(query, 'type') ?? 'PDF');
  if (!known) throw new AppError('invalid-export-type', { type: single(query, 'type'), supported: EXPORT_TYPES });
  const type = known.name;
  const exporter = EXPORTERS[type]!;
  const format = single(query, 'format');
  if (format !== undefined && !/^[0-9]{1,9}$/.test(format)) throw new AppError('invalid-export-format', { parameter: 'format' });
  const signed = single(query, 'firmada');
  if (signed !== undefined && !['0', '1', 'true', 'false'].includes(signed.toLowerCase())) throw new AppError('invalid-parameter', { parameter: 'firmada' });
  return { type, exporter, format: format === undefined || Number(format) === 0 ? undefined : Number(format), lang: single(query, 'lang'), signed: signed === '1' || signed?.toLowerCase() === 'true' };
}
