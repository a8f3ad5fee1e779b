import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { documentIdOf, type DocumentType } from '../documents/index.ts';
import { renderDocumentFile } from './document-file.ts';
import { finishedFile } from './einvoice-finishing.ts';
import { EXPORT_TYPES, EXPORTERS } from './exporters.ts';
import type { ExportRequest } from './export-request.ts';
import { loadExportView } from './load-export-view.ts';

/** An exported file: its bytes and how to answer them. */
export interface ExportedFile {
  body: Buffer;
  contentType: string;
  disposition: string;
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
  const file = await finishedFile(ctx, type, view, request.type, await renderDocumentFile(view, request.type), request.signed ?? false);
  return { body: file.content, contentType: file.contentType, disposition: `${request.exporter.disposition}; filename="${file.filename}"` };
}
