import type { create } from 'xmlbuilder2';
import { lazyLibrary } from '../../lazy-library.ts';
import type { XmlTree } from '../verifactu/index.ts';

const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');
type XmlNode = ReturnType<typeof create>;

/** The roots of the files TicketBAI takes, with their namespaces (TicketBAI 1.2.2 and Zuzendu 1.0 schemas). */
export const ROOTS = {
  alta: { name: 'TicketBai', namespace: 'urn:ticketbai:emision' },
  anulacion: { name: 'AnulaTicketBai', namespace: 'urn:ticketbai:anulacion' },
  'zuzendu-alta': { name: 'SubsanacionModificacionTicketBAI', namespace: 'urn:ticketbai:zuzendu-alta' },
  'zuzendu-baja': { name: 'SubsanacionAnulacionTicketBAI', namespace: 'urn:ticketbai:zuzendu-baja' },
} as const;

function append(parent: XmlNode, tree: XmlTree): void {
  for (const [name, value] of Object.entries(tree)) {
    if (typeof value === 'string') parent.ele(name).txt(value);
    else if (Array.isArray(value)) for (const item of value) append(parent.ele(name), item);
    else append(parent.ele(name), value);
  }
}

/**
 * A file as its own UTF-8 document on one line: the root in its namespace (prefix `T`), the
 * children unqualified, as the schemas declare them (no elementFormDefault).
 */
export function fileXml(kind: keyof typeof ROOTS, content: XmlTree): string {
  const root = ROOTS[kind];
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  append(doc.ele(root.namespace, `T:${root.name}`), content);
  return doc.end();
}

/** The text of a signed file's `ds:SignatureValue`, white space removed (what identifiers and chains take characters of). */
export function signatureValueOf(signed: string): string {
  const match = /<(?:\w+:)?SignatureValue\b[^>]*>([^<]*)<\/(?:\w+:)?SignatureValue>/.exec(signed);
  if (!match) throw new Error('the signed file has no SignatureValue');
  return match[1]!.replace(/\s+/g, '');
}
