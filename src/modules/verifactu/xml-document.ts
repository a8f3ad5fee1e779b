import { randomBytes } from 'node:crypto';
import type { create } from 'xmlbuilder2';
import { lazyLibrary } from '../../lazy-library.ts';
import type { XmlTree } from './xml-tree.ts';

const markerToken = () => `signed-${randomBytes(12).toString('hex')}`;
const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');
type XmlNode = ReturnType<typeof create>;

const BASE = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws';
/** SuministroLR.xsd (the message) and SuministroInformacion.xsd (its types), exactly as the schemas name them. */
const NAMESPACES = { sum: `${BASE}/SuministroLR.xsd`, sum1: `${BASE}/SuministroInformacion.xsd`, sfe: `${BASE}/EventosSIF.xsd` } as const;

function append(parent: XmlNode, tree: XmlTree, prefix = 'sum1'): void {
  for (const [name, value] of Object.entries(tree)) {
    if (typeof value === 'string') parent.ele(`${prefix}:${name}`).txt(value);
    else if (Array.isArray(value)) for (const item of value) append(parent.ele(`${prefix}:${name}`), item, prefix);
    else append(parent.ele(`${prefix}:${name}`), value, prefix);
  }
}

export interface StoredRecord {
  tipo: 'alta' | 'anulacion';
  content: XmlTree;
  /** NO VERI*FACTU: the record as signed (its own XML document); carried byte for byte, so that its signature holds. */
  signed?: string;
}

/** The taxpayer a message is about, and what its header says beside it (CabeceraType). */
export interface MessageHeader {
  taxpayer: { NombreRazon: string; NIF: string };
  /** VERI*FACTU mode: records held back by a failure (`RemisionVoluntaria/Incidencia`). */
  incidencia?: boolean;
  /** NO VERI*FACTU mode: the AEAT's request being answered, and whether this message ends it. */
  requerimiento?: { ref: string; fin: boolean };
}

function header(message: MessageHeader): XmlTree {
  const cabecera: XmlTree = { ObligadoEmision: { NombreRazon: message.taxpayer.NombreRazon, NIF: message.taxpayer.NIF } };
  if (message.incidencia) cabecera.RemisionVoluntaria = { Incidencia: 'S' };
  if (message.requerimiento) {
    cabecera.RemisionRequerimiento = { RefRequerimiento: message.requerimiento.ref, ...(message.requerimiento.fin ? { FinRequerimiento: 'S' } : {}) };
  }
  return cabecera;
}

function appendMessage(parent: XmlNode, message: MessageHeader, records: StoredRecord[], token: string): void {
  const root = parent.ele('sum:RegFactuSistemaFacturacion', { 'xmlns:sum': NAMESPACES.sum, 'xmlns:sum1': NAMESPACES.sum1 });
  append(root.ele('sum:Cabecera'), header(message));
  records.forEach((record, index) => {
    if (record.signed) root.ele('sum:RegistroFactura').txt(`${token}-${index}`);
    else append(root.ele('sum:RegistroFactura'), { [record.tipo === 'alta' ? 'RegistroAlta' : 'RegistroAnulacion']: record.content });
  });
}

/**
 * Signed records go in as written: a serialiser would re-indent them and break their signatures.
 * Each stands in the message as a marker no text can contain (a fresh random token), swapped for it
 * once the message is written.
 */
function withSigned(xml: string, records: StoredRecord[], token: string): string {
  return records.some((record) => record.signed)
    ? xml.replace(new RegExp(`${token}-(\\d+)`, 'g'), (_, index: string) => withoutDeclaration(records[Number(index)]!.signed!))
    : xml;
}

/**
 * `RegFactuSistemaFacturacion` (SuministroLR.xsd): the header naming the taxpayer and 1 to 1000
 * records, each as generated. What an auditor exports.
 */
export function suministroXml(taxpayer: { NombreRazon: string; NIF: string }, records: StoredRecord[]): string {
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  const token = markerToken();
  appendMessage(doc, { taxpayer }, records, token);
  return withSigned(doc.end({ prettyPrint: !records.some((record) => record.signed) }), records, token);
}

/** The same message in its SOAP 1.1 envelope, as it is sent to the AEAT (SistemaFacturacion.wsdl, document/literal). */
export function suministroEnvelope(message: MessageHeader, records: StoredRecord[]): string {
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  const envelope = doc.ele('soapenv:Envelope', { 'xmlns:soapenv': SOAP_ENVELOPE });
  envelope.ele('soapenv:Header');
  const token = markerToken();
  appendMessage(envelope.ele('soapenv:Body'), message, records, token);
  return withSigned(doc.end(), records, token);
}

const SOAP_ENVELOPE = 'http://schemas.xmlsoap.org/soap/envelope/';

/**
 * One record as its own XML document (`sum1:RegistroAlta` or `sum1:RegistroAnulacion` as root, on
 * one line): what a NO VERI*FACTU record's signature covers (signing/sign-record.ts).
 */
export function recordXml(record: StoredRecord): string {
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele(`sum1:${record.tipo === 'alta' ? 'RegistroAlta' : 'RegistroAnulacion'}`, { 'xmlns:sum1': NAMESPACES.sum1 });
  append(root, record.content);
  return doc.end();
}

/** An event of the NO VERI*FACTU event log as its own XML document (`RegistroEvento`, EventosSIF.xsd), on one line. */
export function eventXml(content: XmlTree): string {
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  append(doc.ele('sfe:RegistroEvento', { 'xmlns:sfe': NAMESPACES.sfe }), content, 'sfe');
  return doc.end();
}

/** An XML document without its `<?xml ...?>` declaration: to be placed inside another document. */
export function withoutDeclaration(xml: string): string {
  return xml.replace(/^<\?xml[^>]*\?>\s*/, '');
}
