import type { PdfContext } from './pdf-context.ts';
import { FONT } from './pdf-fonts.ts';
import { COLORS, type PdfPen, type TextStyle } from './pdf-pen.ts';

const FOOTER: TextStyle = { size: 7.5, color: COLORS.muted };

/**
 * The draft mark of an invoice still editable: the language's "draft" written large, light red
 * and diagonal across the page. Drawn first on every page, so that the content lies over it; it
 * is real text, so it is also found by search and read by screen readers.
 */
export function drawDraftMark(pen: PdfPen, word: string): void {
  const doc = pen.doc;
  doc.font(FONT.bold);
  const size = Math.min(120, (pen.pageWidth * 0.8) / Math.max(1, doc.fontSize(1).widthOfString(word)));
  const width = doc.fontSize(size).widthOfString(word);
  const centre = { x: pen.pageWidth / 2, y: pen.pageHeight / 2 };
  doc.save().rotate(-38, { origin: [centre.x, centre.y] });
  doc.fillColor(COLORS.draft, 0.14).text(word, centre.x - width / 2, centre.y - size * 0.6, { lineBreak: false });
  doc.restore();
}

/**
 * Every page's footer, once the number of pages is known (the document buffers its pages): a rule,
 * the company's legal name and tax id at the left, "page X of Y" at the right.
 */
export function drawPageFooters(ctx: PdfContext): void {
  const { pen, view, labels } = ctx;
  const { start, count } = pen.doc.bufferedPageRange();
  const y = pen.bottom + 16;
  const company = [view.company.legalName || view.company.name, view.company.taxId ? `${labels.taxId}: ${view.company.taxId}` : ''].filter(Boolean).join('   ·   ');
  for (let index = start; index < start + count; index++) {
    pen.doc.switchToPage(index);
    pen.rule(pen.left, pen.right, y - 5);
    const page = labels.pageOf.replace('{page}', String(index - start + 1)).replace('{pages}', String(count));
    const pageWidth = pen.measure(page, FOOTER);
    pen.lines(pen.wrap(company, pen.width - pageWidth - 20, FOOTER).slice(0, 2), pen.left, y, FOOTER);
    pen.text(page, pen.left, y, FOOTER, { align: 'right', width: pen.width });
  }
}
