import { lazyLibrary } from '../../lazy-library.ts';
import { childElements, type Element, type XmlTree } from '../verifactu/index.ts';

const xmldom = lazyLibrary<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');

function treeOf(element: Element): XmlTree {
  const tree: XmlTree = {};
  for (const child of childElements(element)) {
    const name = child.localName!;
    const value = childElements(child).length ? treeOf(child) : (child.textContent ?? '');
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
  const found = childElements(doc.documentElement as unknown as Element).find((child) => child.localName === name);
  if (!found) throw new Error(`the kept file has no ${name}`);
  return treeOf(found);
}
