import type { PdfContext } from './pdf-context.ts';
import { COLORS, type TextStyle } from './pdf-pen.ts';

const SMALL: TextStyle = { size: 8.5 };
const CAPTION: TextStyle = { size: 7.5, bold: true, color: COLORS.accent };

/**
 * A free text (the observations, the print format's closing text) under an optional caption,
 * flowing line by line over as many pages as it needs; the caption stays with its first lines.
 */
export function drawNote(ctx: PdfContext, caption: string | null, text: string, style: TextStyle = SMALL): void {
  const { pen, labels } = ctx;
  if (text.trim() === '') return;
  const lines = pen.wrap(text.trim(), pen.width, style);
  const step = pen.lineHeight(style);
  const captionHeight = caption ? pen.lineHeight(CAPTION) + 1 : 0;
  pen.ensure(captionHeight + step * Math.min(lines.length, 2));
  if (caption) {
    pen.text(caption.toLocaleUpperCase(labels.locale), pen.left, pen.y, CAPTION);
    pen.y += captionHeight;
  }
  for (const line of lines) {
    pen.ensure(step);
    pen.text(line, pen.left, pen.y, style);
    pen.y += step;
  }
  pen.y += 12;
}
