import { setImmediate as nextTurn } from 'node:timers/promises';
import type PDFKitDocument from 'pdfkit';
import { lazyLibrary } from '../../../lazy-library.ts';
import type { ExportView } from '../export-view.ts';
import { labelsFor } from '../labels/labels.ts';
import { localeFormat } from '../locale-format.ts';
import { drawContinuationHeader, drawDocumentHeader } from './document-header.ts';
import { documentTitle } from './document-title.ts';
import { drawFiscalQrAtEnd } from './fiscal-qr-block.ts';
import { drawLineTable } from './line-table.ts';
import { drawNote } from './notes-block.ts';
import { drawDraftMark, drawPageFooters } from './page-marks.ts';
import { drawPayment } from './payment-block.ts';
import type { PdfContext } from './pdf-context.ts';
import { registerPdfFonts } from './pdf-fonts.ts';
import { PdfPen } from './pdf-pen.ts';
import { drawTotals } from './totals-block.ts';

const pdfkit = lazyLibrary<typeof PDFKitDocument>('pdfkit');

/**
 * The document as a company sends it to its customer, as PDF bytes: a pure function of the view
 * (no database, no clock but the file's creation date).
 *
 * Page 1 starts with the company, the title and code, the customer's or supplier's box and the
 * document's dates; then the lines' table (its header repeated on every page), the tax breakdown
 * and totals, payment and receipts, observations and the print format's closing text. Every page
 * ends with "page X of Y"; an editable invoice carries a draft mark on every page. All text is
 * real text in embedded fonts, so it can be searched, copied and read aloud.
 *
 * CPU: a 20-line invoice takes a few milliseconds (fonts are parsed once per process, see
 * `pdf-fonts.ts`). Long documents yield to the event loop after every page of lines.
 */
export async function renderPdf(view: ExportView): Promise<Buffer> {
  const labels = labelsFor(view.lang);
  const title = documentTitle(view, labels);
  const PDFDocument = pdfkit();
  const doc = new PDFDocument({
    autoFirstPage: false,
    bufferPages: true,
    // No default font: pdfkit would load Helvetica for nothing (every text uses the embedded fonts).
    font: null as unknown as string,
    pdfVersion: '1.7',
    lang: labels.locale,
    displayTitle: true,
    info: {
      Title: `${title} ${view.code}`,
      Author: view.company.legalName || view.company.name,
      Subject: `${title} ${view.code} - ${view.subject.name || view.subject.legalName}`,
      Creator: view.company.legalName || view.company.name,
    },
  });
  const bytes = collect(doc);
  registerPdfFonts(doc);
  const pen = new PdfPen(doc);
  const ctx: PdfContext = { view, labels, fmt: localeFormat(labels, view.currency), title, pen };
  if (view.kind === 'invoice' && view.editable) pen.onEveryPage.push(() => drawDraftMark(pen, labels.draft));
  pen.onContinuation.push(() => drawContinuationHeader(ctx));

  pen.newPage();
  drawDocumentHeader(ctx);
  await drawLineTable(ctx);
  drawTotals(ctx);
  if (view.format?.text) drawNote(ctx, null, view.format.text);
  drawPayment(ctx);
  drawNote(ctx, labels.observations, view.observations);
  if (view.fiscalQr?.placement === 'end') drawFiscalQrAtEnd(pen, view.fiscalQr);
  drawPageFooters(ctx);
  // pdfkit's end (fonts subset, pages compressed and written) is one synchronous slice of its own.
  if (pen.pages > 1) await nextTurn();
  doc.end();
  return bytes;
}

/** The document's bytes once pdfkit has written them all. */
export function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}
