import { lazyLibrary } from '../../lazy-library.ts';
import type { XmlTree } from '../verifactu/index.ts';

const xmldom = lazyLibrary<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');
type Element = import('@xmldom/xmldom').Element;

const elements = (parent: Element): Element[] => {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) if (node.nodeType === 1) found.push(node as Element);
  return found;
};

function treeOf(element: Element): XmlTree {
  const tree: XmlTree = {};
  for (const child of elements(element)) {
    const name = child.localName!;
    const value = elements(child).length ? treeOf(child) : (child.textContent ?? '');
    const kept = tree[name];
    if (kept === undefined) tree[name] = value;
    else tree[name] = [...(Array.isArray(kept) ? kept : [kept as XmlTree]), value as XmlTree];
  }
  return tree;
}

/**
 * An element of a kept file as a tree (children in order, repeated ones as a list): what a Zuzendu
 * correction carries unchanged from the file it corrects (its `HuellaTBAI`, its `IDFactura`).
 */
export function elementOfFile(file: string, name: string): XmlTree {
  const doc = new (xmldom().DOMParser)().parseFromString(file, 'text/xml');
  const found = elements(doc.documentElement as unknown as Element).find((child) => child.localName === name);
  if (!found) throw new Error(`the kept file has no ${name}`);
  return treeOf(found);
}
