import type { create } from 'xmlbuilder2';
import { lazyLibrary } from '../../../lazy-library.ts';

const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');

/** A new XML document (version 1.0, UTF-8). */
export function xmlDocument(): XmlNode {
  return xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
}

/** An element under construction (xmlbuilder2's builder). */
export type XmlNode = ReturnType<typeof create>;

/**
 * Appends `<name>text</name>` unless the text is empty: the e-invoice schemas and the EN 16931
 * rules treat an empty element as present-but-invalid, so absent data leaves no element at all.
 */
export function addText(parent: XmlNode, name: string, text: string | null | undefined, attributes?: Record<string, string>): void {
  if (text === null || text === undefined || text.trim() === '') return;
  parent.ele(name, attributes).txt(text);
}

/** One line of text: line breaks and runs of spaces become one space, then cut at `max` characters. */
export function oneLine(text: string | null | undefined, max = Infinity): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max).trimEnd() : flat;
}
