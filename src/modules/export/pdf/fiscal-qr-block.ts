import type QRCode from 'qrcode';
import { lazyLibrary } from '../../../lazy-library.ts';
import type { FiscalQr } from '../fiscal-qr.ts';
import { COLORS, type PdfPen, type TextStyle } from './pdf-pen.ts';

const qrcode = lazyLibrary<typeof QRCode>('qrcode');

/** Points per millimetre. */
const MM = 72 / 25.4;
/**
 * The symbol's side: 35 mm, inside the 30-40 mm the AEAT asks for (QR specification v0.5.0, 3),
 * with a quiet zone of 4 modules (ISO/IEC 18004; never under the 2 mm minimum at this size) kept
 * free of anything else.
 */
export const QR_SIDE = 35 * MM;
const QUIET_MODULES = 4;
const CAPTION: TextStyle = { size: 9, bold: true };
/** At least as large as the invoice's own text (the AEAT's rule for the legend). */
const LEGEND: TextStyle = { size: 10, bold: true, color: COLORS.text };

/** The modules of the symbol: ISO/IEC 18004, error correction level M, the smallest version that holds the URL. */
export function qrModules(url: string): { size: number; dark(row: number, column: number): boolean } {
  const { modules } = qrcode().create(url, { errorCorrectionLevel: 'M' });
  return { size: modules.size, dark: (row, column) => Boolean(modules.get(row, column)) };
}

/**
 * The QR printed after the invoice's last text (`placement: 'end'`), at the right, on a new page
 * when what is left of this one cannot hold it whole; the caption may use the whole width beside it.
 */
export function drawFiscalQrAtEnd(pen: PdfPen, qr: FiscalQr): void {
  const height = 3 * pen.lineHeight(CAPTION) + QR_SIDE + 12 * MM + (qr.legend ? pen.lineHeight(LEGEND) : 0);
  pen.ensure(height);
  pen.y = drawFiscalQr(pen, qr, pen.right, pen.y, pen.width / 2) + 12;
}

/**
 * The caption as lines no wider than the block: whole where it fits, else broken after its hyphens,
 * each line but the last ending with one (how TicketBAI prints an identifier that does not fit,
 * specification 1.2 §4.3.2), a part still too wide wrapped as text.
 */
function captionLines(pen: PdfPen, caption: string, width: number): string[] {
  if (pen.measure(caption, CAPTION) <= width) return [caption];
  const lines: string[] = [];
  let line = '';
  for (const part of caption.split(/(?<=-)/)) {
    if (line && pen.measure(line + part, CAPTION) > width) {
      lines.push(line);
      line = '';
    }
    line += part;
  }
  if (line) lines.push(line);
  return lines.flatMap((text) => (pen.measure(text, CAPTION) > width ? pen.wrap(text, width, CAPTION) : [text]));
}

/**
 * Draws the fiscal QR with its right edge at `right` and its caption's top at `top` (the caption
 * above the symbol: «QR tributario:», or TicketBAI's identifier; the legend «VERI*FACTU» below
 * it), as vector squares: sharp at any print resolution. Returns the y below the block.
 */
export function drawFiscalQr(pen: PdfPen, qr: FiscalQr, right: number, top: number, captionWidth?: number): number {
  const { size, dark } = qrModules(qr.url);
  const module = QR_SIDE / size;
  const quiet = module * QUIET_MODULES;
  const left = right - QR_SIDE - quiet;
  const width = QR_SIDE + 2 * quiet;
  const wide = Math.max(width, captionWidth ?? width);
  const symbolTop = pen.lines(captionLines(pen, qr.caption, wide), right - wide, top, CAPTION, { align: captionWidth === undefined ? 'center' : 'right', width: wide }) + quiet;
  const doc = pen.doc.save();
  doc.rect(left - quiet, symbolTop - quiet, width, width).fill('#ffffff');
  // One rectangle per run of dark modules in a row: a few hundred path operations, one fill.
  for (let row = 0; row < size; row++) {
    for (let column = 0; column < size; column++) {
      if (!dark(row, column)) continue;
      let end = column;
      while (end + 1 < size && dark(row, end + 1)) end++;
      doc.rect(left + column * module, symbolTop + row * module, (end - column + 1) * module, module);
      column = end;
    }
  }
  doc.fill('#000000').restore();
  let y = symbolTop + QR_SIDE + quiet;
  if (qr.legend) {
    pen.text(qr.legend, right - width, y, LEGEND, { align: 'center', width });
    y += pen.lineHeight(LEGEND);
  }
  return y;
}
