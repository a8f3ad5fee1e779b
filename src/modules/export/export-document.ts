import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { documentIdOf, type DocumentType } from '../documents/index.ts';
import { EXPORT_TYPES, EXPORTERS } from './exporters.ts';
import type { ExportRequest } from './export-request.ts';
import type { ExportView } from './export-view.ts';
import { labelsFor } from './labels/labels.ts';
import { loadExportView } from './load-export-view.ts';

/** An exported file: its bytes and how to answer them. */
export interface ExportedFile {
  body: Buffer;
  contentType: string;
  disposition: string;
}

/**
 * The file's name: the document's word in the chosen language and its code (`Factura_FAC2026A1.pdf`,
 * `Credit_note_FAC2026R1.xml`), reduced to letters, digits, `.`, `_` and `-` so that a code holding
 * `/` or quotes cannot break the header or name a path.
 */
export function fileNameOf(view: ExportView, extension: string): string {
  const labels = labelsFor(view.lang);
  const word = view.kind === 'invoice' && (view.seriesType === 'R' || view.rectifies) ? labels.creditNoteFileWord : labels.fileWords[view.kind];
  return `${word}_${view.code || view.id}`.replace(/[^A-Za-z0-9._-]+/g, '_') + `.${extension}`;
}

/**
 * The export use case: finds the document by id or code, refuses an e-invoice of a non-invoice,
 * reads its view and renders it. Reads only; nothing is written.
 */
export async function exportDocument(ctx: AppContext, type: DocumentType, idOrCode: string, request: ExportRequest): Promise<ExportedFile> {
  if (request.exporter.invoicesOnly && !type.invoice) {
    throw new AppError('export-type-unavailable', { type: request.type, supported: EXPORT_TYPES.filter((name) => !EXPORTERS[name]!.invoicesOnly) });
  }
  const id = await documentIdOf(ctx.database.kysely, type, idOrCode);
  const view = id === undefined ? undefined : await loadExportView(ctx, type, id, { format: request.format, lang: request.lang });
  if (!view) throw new AppError('record-not-found');
  const rendered = await request.exporter.render(view);
  return {
    body: typeof rendered === 'string' ? Buffer.from(rendered, 'utf8') : rendered,
    contentType: request.exporter.contentType,
    disposition: `${request.exporter.disposition}; filename="${fileNameOf(view, request.exporter.extension)}"`,
  };
}
