/**
 * Splits `text` into lines no wider than `width` as `measure` reports it. Explicit line breaks
 * are kept (an empty paragraph stays an empty line), runs of spaces and tabs separate words, and a
 * word wider than a whole line (a long reference, a URL) is broken between characters so that
 * nothing runs past its cell. Never returns an empty array.
 *
 * The PDF renderer wraps by itself instead of letting pdfkit do it: it must know a row's height
 * before drawing it (rows never split across pages) and pdfkit's own wrapper would add pages.
 */
export function wrapText(text: string, width: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  const space = measure(' ');
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    let current = '';
    let currentWidth = 0;
    for (const word of paragraph.split(/[ \t]+/)) {
      if (word === '') continue;
      const wordWidth = measure(word);
      if (current && currentWidth + space + wordWidth <= width) {
        current += ` ${word}`;
        currentWidth += space + wordWidth;
        continue;
      }
      if (current) lines.push(current);
      if (wordWidth <= width) {
        current = word;
        currentWidth = wordWidth;
        continue;
      }
      // A word longer than the line: as many characters per line as fit (at least one).
      current = '';
      for (const char of word) {
        if (current && measure(current + char) > width) {
          lines.push(current);
          current = '';
        }
        current += char;
      }
      currentWidth = measure(current);
    }
    lines.push(current);
  }
  return lines;
}
