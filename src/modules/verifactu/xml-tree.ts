/**
 * A record as the AEAT's XML carries it, kept as plain JSON in schema order: an element's value is
 * its text, a child tree, or a list of child trees (a repeated element). Stored with the record, so
 * that its XML can be written again byte for byte whenever it is asked for (xml-document.ts).
 */
export interface XmlTree {
  [element: string]: string | XmlTree | XmlTree[];
}

/** An amount as the records write it: euros with two decimals and a dot, a minus only when negative. */
export function xmlAmount(value: { toFixed(decimals: number): string }): string {
  const text = value.toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}

/** A date `YYYY-MM-DD` as the records write it: `dd-mm-yyyy`. */
export function xmlDate(iso: string): string {
  const [year, month, day] = iso.slice(0, 10).split('-');
  return `${day}-${month}-${year}`;
}

/** Characters XML 1.0 cannot carry (control characters but tab and line ends, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as a record keeps it: on one line (runs of white space one space), without characters XML
 * cannot carry (a record is never rewritten, so its XML must be well-formed from the start), cut to
 * the element's length, trimmed (the AEAT stores values trimmed, and hashes them so).
 */
export function xmlText(value: unknown, max: number): string {
  const text = String(value ?? '').replace(NOT_XML, '').replace(/\s+/g, ' ').trim();
  return [...text].slice(0, max).join('').trim();
}
