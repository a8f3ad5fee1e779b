import type { create } from 'xmlbuilder2';
import { lazyLibrary } from '../../lazy-library.ts';
import type { XmlTree } from './xml-tree.ts';

const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');
type XmlNode = ReturnType<typeof create>;

const BASE = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws';
/** SuministroLR.xsd (the message) and SuministroInformacion.xsd (its types), exactly as the schemas name them. */
export const NAMESPACES = { sum: `${BASE}/SuministroLR.xsd`, sum1: `${BASE}/SuministroInformacion.xsd` } as const;

function append(parent: XmlNode, tree: XmlTree): void {
  for (const [name, value] of Object.entries(tree)) {
    if (typeof value === 'string') parent.ele(`sum1:${name}`).txt(value);
    else if (Array.isArray(value)) for (const item of value) append(parent.ele(`sum1:${name}`), item);
    else append(parent.ele(`sum1:${name}`), value);
  }
}

export interface StoredRecord {
  tipo: 'alta' | 'anulacion';
  content: XmlTree;
}

/**
 * `RegFactuSistemaFacturacion` (SuministroLR.xsd): the header naming the taxpayer and 1 to 1000
 * records, each as generated. What is sent to the AEAT (part 2) and what an auditor exports.
 */
export function suministroXml(taxpayer: { NombreRazon: string; NIF: string }, records: StoredRecord[]): string {
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele('sum:RegFactuSistemaFacturacion', { 'xmlns:sum': NAMESPACES.sum, 'xmlns:sum1': NAMESPACES.sum1 });
  append(root.ele('sum:Cabecera'), { ObligadoEmision: { NombreRazon: taxpayer.NombreRazon, NIF: taxpayer.NIF } });
  for (const record of records) {
    append(root.ele('sum:RegistroFactura'), { [record.tipo === 'alta' ? 'RegistroAlta' : 'RegistroAnulacion']: record.content });
  }
  return doc.end({ prettyPrint: true });
}
