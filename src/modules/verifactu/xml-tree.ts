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

/** Text cut to the element's length, trimmed (the AEAT stores values trimmed, and hashes them so). */
export function xmlText(value: unknown, max: number): string {
  return [...String(value ?? '').trim()].slice(0, max).join('').trim();
}
