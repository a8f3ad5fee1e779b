import type PDFKitDocument from 'pdfkit';
import { lazyLibrary } from '../../../lazy-library.ts';
import type { ReportTable } from '../table-export.ts';
import { FONT, registerPdfFonts } from './pdf-fonts.ts';
import { collect } from './render-pdf.ts';

const pdfkit = lazyLibrary<typeof PDFKitDocument>('pdfkit');

const MARGIN = 40;
const ROW = 15;

/**
 * A report table as a PDF (A4, embedded fonts, real text): its title, a bold header row repeated
 * on every page, numbers right-aligned with the report's decimals, "page X of Y" at the foot.
 */
export async function reportPdf(table: ReportTable): Promise<Buffer> {
  const PDFDocument = pdfkit();
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, bufferPages: true, autoFirstPage: false, font: null as unknown as string, pdfVersion: '1.7', displayTitle: true, info: { Title: table.title } });
  const bytes = collect(doc);
  registerPdfFonts(doc);
  const width = 595.28 - 2 * MARGIN;
  const columns = table.columns.length;
  const widths = table.columns.map((name) => (name === 'descripcion' || name === 'concepto' ? 2 : 1));
  const unit = width / widths.reduce((sum, w) => sum + w, 0);
  const xs = widths.reduce<number[]>((acc, w, i) => [...acc, (acc[i] ?? MARGIN) + w * unit], [MARGIN]);
  let y = 0;
  const row = (cells: Array<string | number>, bold = false) => {
    doc.font(bold ? FONT.bold : FONT.regular).fontSize(9);
    cells.forEach((cell, i) => {
      const text = typeof cell === 'number' ? cell.toFixed(table.decimals) : cell;
      doc.text(text, xs[i]! + 2, y, { width: widths[i]! * unit - 4, align: typeof cell === 'number' ? 'right' : 'left', lineBreak: false, ellipsis: true });
    });
    y += ROW;
  };
  const page = () => {
    doc.addPage();
    y = MARGIN;
    doc.font(FONT.bold).fontSize(13).text(table.title, MARGIN, y, { width });
    y += 26;
    row(table.columns, true);
  };
  page();
  for (const cells of table.rows) {
    if (y > 841.89 - MARGIN - ROW) page();
    row(cells.slice(0, columns));
  }
  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    doc.font(FONT.regular).fontSize(8).text(`${i + 1} / ${range.count}`, MARGIN, 841.89 - MARGIN + 10, { width, align: 'right', lineBreak: false });
  }
  doc.end();
  return bytes;
}
