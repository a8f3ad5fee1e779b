import { FONT } from './pdf-fonts.ts';
import { wrapText } from './wrap-text.ts';

/** The document's palette: dark text, one accent (titles, the table header), light rules and fills. */
export const COLORS = {
  text: '#1f2933',
  muted: '#5f6b7a',
  accent: '#1d4e89',
  onAccent: '#ffffff',
  rule: '#d5dbe3',
  fill: '#f1f4f8',
  draft: '#d32f2f',
} as const;

export interface TextStyle {
  size: number;
  bold?: boolean;
  color?: string;
}

export interface TextPlacement {
  /** Alignment inside `width` (needed for `right` and `center`). */
  align?: 'left' | 'right' | 'center';
  width?: number;
}

/** A4 in points, and the margins every page keeps (the footer lives below `bottom`). */
const PAGE = { width: 595.28, height: 841.89, margin: 40, footer: 46 } as const;

/**
 * The drawing surface of one document: a pdfkit document plus a vertical cursor `y`, the page
 * geometry and what every new page starts with. All text goes through `text`, one line at a time
 * with pdfkit's own wrapping off (`lineBreak: false`): pdfkit then never adds a page by itself,
 * and every page break is one of `ensure`/`newPage`, where the repeated headers are drawn.
 */
export class PdfPen {
  readonly doc: PDFKit.PDFDocument;
  readonly left = PAGE.margin;
  readonly right = PAGE.width - PAGE.margin;
  readonly width = PAGE.width - 2 * PAGE.margin;
  readonly top = PAGE.margin;
  /** The lowest y content may reach; the page footer is drawn below it. */
  readonly bottom = PAGE.height - PAGE.footer;
  readonly pageWidth = PAGE.width;
  readonly pageHeight = PAGE.height;
  y: number = PAGE.margin;
  /** Pages started so far. */
  pages = 0;
  /** Run on every new page, first included, before anything else is drawn on it (the draft mark). */
  readonly onEveryPage: Array<() => void> = [];
  /** Run on every page after the first (the compact document header), then `repeat`. */
  readonly onContinuation: Array<() => void> = [];
  /** What a page break in the middle of a block must draw again (the line table's header), or null. */
  repeat: (() => void) | null = null;

  constructor(doc: PDFKit.PDFDocument) {
    this.doc = doc;
  }

  newPage(): void {
    this.doc.addPage({ size: [PAGE.width, PAGE.height], margin: 0 });
    this.pages += 1;
    this.y = this.top;
    for (const draw of this.onEveryPage) draw();
    if (this.pages > 1) {
      for (const draw of this.onContinuation) draw();
      this.repeat?.();
    }
  }

  /** Room for `height` more points on this page, else a new page. True when a page was added. */
  ensure(height: number): boolean {
    if (this.y + height <= this.bottom) return false;
    this.newPage();
    return true;
  }

  /** Selects the font and size for measuring and drawing. */
  use(style: TextStyle): PDFKit.PDFDocument {
    return this.doc.font(style.bold ? FONT.bold : FONT.regular).fontSize(style.size);
  }

  measure(text: string, style: TextStyle): number {
    return this.use(style).widthOfString(text);
  }

  /** The advance from one line of text to the next. */
  lineHeight(style: TextStyle): number {
    return style.size * 1.25;
  }

  /** `text` as lines no wider than `width` in `style`. */
  wrap(text: string, width: number, style: TextStyle): string[] {
    const doc = this.use(style);
    return wrapText(text, width, (part) => doc.widthOfString(part));
  }

  /** One line of text whose top is at `y`. Line breaks must have been resolved (see `wrap`). */
  text(value: string, x: number, y: number, style: TextStyle, placement: TextPlacement = {}): void {
    if (value === '') return;
    const doc = this.use(style);
    let left = x;
    if (placement.align && placement.align !== 'left' && placement.width !== undefined) {
      const width = doc.widthOfString(value);
      left = placement.align === 'right' ? x + placement.width - width : x + (placement.width - width) / 2;
    }
    doc.fillColor(style.color ?? COLORS.text).text(value, left, y, { lineBreak: false });
  }

  /** Wrapped lines from `y` down; returns the y below the last one. */
  lines(lines: string[], x: number, y: number, style: TextStyle, placement: TextPlacement = {}): number {
    const step = this.lineHeight(style);
    for (const line of lines) {
      this.text(line, x, y, style, placement);
      y += step;
    }
    return y;
  }

  rule(x1: number, x2: number, y: number, color: string = COLORS.rule, thickness = 0.6): void {
    this.doc.save().moveTo(x1, y).lineTo(x2, y).lineWidth(thickness).strokeColor(color).stroke().restore();
  }

  box(x: number, y: number, width: number, height: number, fill: string | null, stroke: string | null = null): void {
    const doc = this.doc.save().rect(x, y, width, height);
    if (fill && stroke) doc.lineWidth(0.6).fillAndStroke(fill, stroke);
    else if (fill) doc.fill(fill);
    else if (stroke) doc.lineWidth(0.6).stroke(stroke);
    doc.restore();
  }
}
