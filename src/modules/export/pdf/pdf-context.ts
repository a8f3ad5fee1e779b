import type { ExportView } from '../export-view.ts';
import type { Labels } from '../labels/labels.ts';
import type { LocaleFormat } from '../locale-format.ts';
import type { PdfPen } from './pdf-pen.ts';

/** What every block of the PDF draws with: the document, its words and number formats, the pen. */
export interface PdfContext {
  view: ExportView;
  labels: Labels;
  fmt: LocaleFormat;
  /** The printed title (`documentTitle`). */
  title: string;
  pen: PdfPen;
}
