import type { Element } from '@xmldom/xmldom';

/**
 * Reading a tax agency's XML by local names (namespaces and prefixes vary between services and
 * their versions): the answers of the AEAT, the Basque treasuries and FACe, and kept files.
 */
export type { Element };

/** The element children of `parent`, only those named `name` when given. */
export function childElements(parent: Element | undefined, name?: string): Element[] {
  const found: Element[] = [];
  for (let node = parent?.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (name === undefined || (node as Element).localName === name)) found.push(node as Element);
  }
  return found;
}

/** The trimmed text of the element at a path of child names under `parent`, or undefined. */
export function childText(parent: Element | undefined, ...path: string[]): string | undefined {
  let node = parent;
  for (const name of path) node = childElements(node, name)[0];
  return node ? (node.textContent ?? '').trim() : undefined;
}
