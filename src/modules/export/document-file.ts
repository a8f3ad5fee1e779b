import type { AppContext } from '../../app-context.ts';
import type { DocumentType } from '../documents/index.ts';
import { EXPORTERS, TYPE_ALIASES } from './exporters.ts';
import type { ExportView } from './export-view.ts';
import { labelsFor } from './labels/labels.ts';
import { loadExportView } from './load-export-view.ts';
import { documentTitle } from './pdf/document-title.ts';

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

/** One rendered export of a document, as another module attaches it (an e-mail). */
export interface DocumentFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** The export type a client names (`pdf`, `XLS` ...) as its canonical name, or undefined when there is no such type. */
export function exportTypeOf(name: string): { name: string; invoicesOnly: boolean } | undefined {
  const upper = name.trim().toUpperCase();
  const canonical = TYPE_ALIASES[upper] ?? upper;
  const exporter = Object.hasOwn(EXPORTERS, canonical) ? EXPORTERS[canonical] : undefined;
  return exporter && { name: canonical, invoicesOnly: exporter.invoicesOnly };
}

/** What a document's export prints, in a language (`undefined`: the subject's); undefined when the document does not exist. */
export function documentView(ctx: AppContext, type: DocumentType, id: number, lang?: string): Promise<ExportView | undefined> {
  return loadExportView(ctx, type, id, { lang });
}

/** The document's title in its view's language (`Factura`, `Credit note`, the print format's own). */
export function documentTitleOf(view: ExportView): string {
  return documentTitle(view, labelsFor(view.lang));
}

/** The view drawn as one export type (a canonical name from `exportTypeOf`), with the file name a download would carry. */
export async function renderDocumentFile(view: ExportView, exportType: string): Promise<DocumentFile> {
  const exporter = EXPORTERS[exportType]!;
  const rendered = await exporter.render(view);
  return {
    filename: fileNameOf(view, exporter.extension),
    contentType: exporter.contentType,
    content: typeof rendered === 'string' ? Buffer.from(rendered, 'utf8') : rendered,
  };
}
