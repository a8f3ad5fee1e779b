import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The fonts of exported PDFs: DejaVu Sans Condensed, regular and bold, embedded (and subset by
 * pdfkit) in every document. Embedded Unicode fonts are required, not a choice: the PDF standard
 * fonts lack U+202F (the narrow no-break space French and Portuguese amounts group with) and any
 * party's name may be Greek or Cyrillic; DejaVu covers both.
 *
 * Fonts are immutable assets, so they are read and parsed once per process, on the first render.
 * Handing pdfkit the parsed fontkit font instead of the TTF bytes matters: pdfkit parses bytes
 * again for every document (about 20 ms of CPU for the two faces), while a parsed font is used as
 * it is and keeps its glyph caches across documents. Each document still makes its own subset
 * (`font.createSubset()`), so documents share no mutable state through the font.
 */

/** The part of a fontkit font pdfkit needs to accept it as a font source (it tests `layout`). */
interface FontkitFont {
  layout(text: string): unknown;
  postscriptName: string;
}

/** A font as `doc.registerFont` takes it: pdfkit's typings list bytes only, its code also takes a parsed font. */
export type PdfFontSource = PDFKit.Mixins.PDFFontSource;

export interface PdfFonts {
  regular: PdfFontSource;
  bold: PdfFontSource;
}

/** The names documents register the faces under (`doc.font(FONT.bold)`). */
export const FONT = { regular: 'Regular', bold: 'Bold' } as const;

const FILES = { regular: 'DejaVuSansCondensed.ttf', bold: 'DejaVuSansCondensed-Bold.ttf' } as const;

let cache: PdfFonts | undefined;

/** The parsed faces, loaded on first use and then shared by every document of the process. */
export function pdfFonts(): PdfFonts {
  if (!cache) {
    const require = createRequire(import.meta.url);
    const dir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    // fontkit is pdfkit's own dependency: resolve it from pdfkit so both use the same copy.
    const fontkit = createRequire(require.resolve('pdfkit'))('fontkit') as { create(bytes: Uint8Array): FontkitFont };
    const load = (file: string) => fontkit.create(fs.readFileSync(path.join(dir, file))) as unknown as PdfFontSource;
    cache = { regular: load(FILES.regular), bold: load(FILES.bold) };
  }
  return cache;
}

/** Registers both faces on a new document under the names of `FONT`. */
export function registerPdfFonts(doc: PDFKit.PDFDocument): void {
  const fonts = pdfFonts();
  doc.registerFont(FONT.regular, fonts.regular);
  doc.registerFont(FONT.bold, fonts.bold);
}
