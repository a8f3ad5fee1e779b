import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DOMParser, onErrorStopParsing, XMLSerializer, type Element } from '@xmldom/xmldom';
import type { Certificates } from './aeat-stand-in.ts';

/**
 * A local stand-in of FACe's web service for suppliers, `facturasspp2` (SOAP 1.1, RPC/literal;
 * shared/reference/facturae-face.md sections 1 to 3), for tests of our FACe client: HTTPS on
 * 127.0.0.1 with the server certificate of `makeCertificates()` (aeat-stand-in.ts), no client
 * certificate (FACe authenticates by the WS-Security signature of each request). Built from the
 * WSDL in test/vendor/facturae/wsdl: its operations, SOAPActions and RPC parts, and the schema of
 * its <types> (copied out in checks/facturasspp2-types.xsd), against which every request body and
 * every answer of the stand-in is validated with xmllint.
 *
 * Each request's WS-Security header is verified (structure, timestamp, xmlsec1 over the Body and
 * the Timestamp with the BinarySecurityToken's certificate, that certificate issued by the test
 * authority); what fails gets FACe's result 100 and lands in `refused`. An `enviarFactura` invoice
 * (.xsig) is checked as FACe does: Facturae 3.2.2 schema (408), XAdES signature by xmlsec1 against
 * the test authority (428), signature policy Facturae v3.1 (440), modality and count (419/420), the
 * DIR3 centres (416/417/418) and their OG-UT-OC relation (412), duplicates (415), attachments
 * (433/312). Schema, signature and policy failures also land in `invalid` with the tools' output,
 * which a test of a good invoice expects empty, as it does `refused`. Accepted invoices are held
 * with their states (section 3.6), which `consultarFactura`, `consultarListadoFacturas` and
 * `anularFactura` answer from and the test moves with `setState` and `acceptCancellation`.
 * Answers are not WS-Security signed (FACe's are; the reference has no current FACe certificate).
 */

const VENDOR = path.resolve(import.meta.dirname, '../vendor/facturae');
const WSDL_FILE = path.join(VENDOR, 'wsdl/facturasspp2.staging.wsdl');
const TYPES_FILE = path.join(VENDOR, 'checks/facturasspp2-types.xsd');
const CATALOG = path.join(VENDOR, 'checks/catalog.xml');
const FACTURAE_SCHEMA = path.join(VENDOR, 'schemas/Facturaev3_2_2.xsd');
const SIGNATURE_SCHEMA = path.join(VENDOR, 'checks/signature-wrapper.xsd');

const FACE = 'https://webservice.face.gob.es';
const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
const XSD = 'http://www.w3.org/2001/XMLSchema';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const WSDL = 'http://schemas.xmlsoap.org/wsdl/';
const WSDL_SOAP = 'http://schemas.xmlsoap.org/wsdl/soap/';
const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const X509V3 = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';
const BASE64_BINARY = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const XADES = 'http://uri.etsi.org/01903/v1.3.2#';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const POLICY = {
  identifier: 'http://www.facturae.es/politica_de_firma_formato_facturae/politica_de_firma_formato_facturae_v3_1.pdf',
  algorithm: 'http://www.w3.org/2000/09/xmldsig#sha1',
  digest: 'Ohixl6upD6av8N7pEvDABhEL6hM=',
};
/** Reference section 3.2 and 3.7. */
const MAX_BODY = 8 * 1024 * 1024;
const MAX_ATTACHMENTS = 5;
const MAX_LIST = 500;
/** How far in the future a wsu:Created may lie (clock skew). */
const SKEW_MS = 5 * 60_000;

/** Result codes (reference section 3.5): the stand-in's own wording of their meaning. */
const RESULTS: Record<string, string> = {
  0: 'Correcto',
  100: 'La firma de la petición no es válida',
  101: 'La petición está vacía',
  302: 'Es obligatorio indicar el motivo de la anulación',
  303: 'No existe factura con el número de registro especificado',
  304: 'La anulación de la factura ya fue aceptada',
  305: 'No se puede anular una factura rechazada',
  306: 'No se puede anular una factura pagada',
  307: 'La anulación de la factura ya fue solicitada',
  309: 'Demasiadas facturas en la petición',
  310: 'Falta un parámetro obligatorio',
  311: 'El tipo MIME de la factura no es válido',
  312: 'El tipo MIME de un anexo no es válido',
  313: 'Es obligatorio indicar el número de registro',
  408: 'El formato de la factura no es correcto',
  412: 'La relación entre órgano gestor, unidad tramitadora y oficina contable no existe',
  415: 'Ya existe una factura con la misma serie, número y fecha de expedición',
  416: 'El número de centros administrativos no es correcto',
  417: 'Hay un centro administrativo sin código',
  418: 'Los roles de los centros administrativos no son correctos (01 fiscal, 02 receptor, 03 pagador)',
  419: 'Solo se admite la modalidad individual',
  420: 'Solo se admite una factura por fichero',
  428: 'La firma de la factura no es válida',
  433: 'Demasiados anexos',
  440: 'La política de firma no es válida',
  900: 'Texto demasiado largo',
};

/** The two axes of an invoice's state (reference section 3.6). */
const STATES: Record<string, { nombre: string; descripcion: string }> = {
  1200: { nombre: 'Registrada', descripcion: 'La factura ha sido registrada en el registro electrónico REC' },
  1300: { nombre: 'Registrada en RCF', descripcion: 'La factura ha sido registrada en el registro contable de facturas' },
  2400: { nombre: 'Contabilizada la obligación reconocida', descripcion: 'Contabilizada la obligación reconocida' },
  2500: { nombre: 'Pagada', descripcion: 'Factura pagada' },
  2600: { nombre: 'Rechazada', descripcion: 'La unidad rechaza la factura' },
  3100: { nombre: 'Anulada', descripcion: 'La unidad aprueba la propuesta de anulación' },
  4100: { nombre: 'No solicitada anulación', descripcion: 'No solicitada anulación' },
  4200: { nombre: 'Solicitada anulación', descripcion: 'Solicitada anulación' },
  4300: { nombre: 'Aceptada anulación', descripcion: 'Aceptada anulación' },
  4400: { nombre: 'Rechazada anulación', descripcion: 'Rechazada anulación' },
};

export type Tramitacion = '1200' | '1300' | '2400' | '2500' | '2600' | '3100';
export type Anulacion = '4100' | '4200' | '4300' | '4400';

export interface FaceState<Code extends string> { codigo: Code; descripcion: string; motivo: string }

/** An invoice the stand-in holds, by its numeroRegistro. */
export interface FaceInvoice {
  numeroRegistro: string;
  organoGestor: string;
  unidadTramitadora: string;
  oficinaContable: string;
  /** The seller's tax id. */
  identificadorEmisor: string;
  numeroFactura: string;
  serieFactura?: string;
  /** IssueDate, YYYY-MM-DD. */
  fechaExpedicion: string;
  /** As FACe answers it: `YYYY-MM-DD HH:MM:SS`, Madrid time. */
  fechaRecepcion: string;
  tramitacion: FaceState<Tramitacion>;
  anulacion: FaceState<Anulacion>;
  /** The decoded .xsig, for invoices sent through `enviarFactura`. */
  xsig?: string;
}

export interface FaceRelation { oc: string; og: string; ut: string }

/** One request that got an answer of the service (not those met by `failures` or refused as malformed SOAP). */
export interface FaceRequest {
  operation: string;
  /** The CN of the BinarySecurityToken's certificate ('' when there is none to read). */
  signedBy: string;
  /** The whole SOAP request. */
  body: string;
  /** enviarFactura: the decoded .xsig. */
  invoice?: string;
  attachments?: Array<{ nombre: string; mime: string; bytes: number }>;
  /** The resultado/codigo answered. */
  resultado: string;
}

export type FaceFailure = 'drop' | 'http-500' | 'fault';

export interface FaceStandIn {
  /** `https://127.0.0.1:<port>/facturasspp2`: FACE_ENDPOINT. */
  url: string;
  received: FaceRequest[];
  /** Requests whose WS-Security failed (answered 100), each with why; a test of our client expects none. */
  refused: string[];
  /** Invoices failing schema, signature or policy (xmllint/xmlsec1 output), and requests off the WSDL or the transport rules; a test of a good invoice expects none. */
  invalid: string[];
  /** The OG–UT–OC relations FACe knows (default: the staging test units P00000010). */
  relations: FaceRelation[];
  invoices: Map<string, FaceInvoice>;
  /** What the next requests meet instead of an answer, one each, in order. */
  failures: FaceFailure[];
  /** Moves an invoice along its processing (the unit's side); `motivo` shows in tramitacion/motivo (a rejection's reason). */
  setState(numeroRegistro: string, tramitacion: Exclude<Tramitacion, '1200'>, motivo?: string): void;
  /** The unit approves a requested cancellation: anulación 4300 and tramitación 3100. */
  acceptCancellation(numeroRegistro: string): void;
  /** The unit refuses a requested cancellation: anulación 4400. */
  rejectCancellation(numeroRegistro: string, motivo?: string): void;
  /** Test only: holds an invoice as if it had been sent and accepted (1200/4100); answers its numeroRegistro. */
  register(invoice?: Partial<Omit<FaceInvoice, 'numeroRegistro' | 'tramitacion' | 'anulacion'>>): string;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// XML helpers

const parse = (xml: string): Element => new DOMParser({ onError: onErrorStopParsing }).parseFromString(xml, 'text/xml').documentElement!;
const serialize = (node: Element): string => new XMLSerializer().serializeToString(node);
const elements = (parent: Element | undefined, name?: string, namespace?: string | null): Element[] => {
  const found: Element[] = [];
  for (let node = parent?.firstChild; node; node = node.nextSibling) {
    if (node.nodeType !== 1) continue;
    const element = node as Element;
    if ((name === undefined || element.localName === name) && (namespace === undefined || (element.namespaceURI ?? null) === namespace)) found.push(element);
  }
  return found;
};
/** The first child element of that name (and namespace, if given; `null` for unqualified). */
const child = (parent: Element | undefined, name: string, namespace?: string | null): Element | undefined => elements(parent, name, namespace)[0];
const at = (parent: Element | undefined, ...names: string[]): Element | undefined => names.reduce<Element | undefined>((node, name) => child(node, name), parent);
const textOf = (parent: Element | undefined, ...names: string[]): string | undefined => {
  const node = at(parent, ...names);
  return node ? (node.textContent ?? '').trim() : undefined;
};
const descendants = (root: Element, name: string, namespace: string): Element[] => Array.from(root.getElementsByTagNameNS(namespace, name));
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const leaf = (name: string, value: string | undefined) => (value === undefined ? `<${name} xsi:nil="true"/>` : `<${name}>${escape(value)}</${name}>`);

// ---------------------------------------------------------------------------------------------
// The WSDL: operations, SOAPActions, RPC parts, and schemas for request and answer bodies

interface Operation { name: string; soapAction: string; input: Array<{ name: string; type: string }>; output: Array<{ name: string; type: string }> }

const { operations, complexTypes } = (() => {
  const wsdl = parse(fs.readFileSync(WSDL_FILE, 'utf8'));
  const messages = new Map(elements(wsdl, 'message', WSDL).map((message) => [message.getAttribute('name')!,
    elements(message, 'part', WSDL).map((part) => ({ name: part.getAttribute('name')!, type: part.getAttribute('type')! }))]));
  const actions = new Map(elements(child(wsdl, 'binding', WSDL), 'operation', WSDL)
    .map((operation) => [operation.getAttribute('name')!, child(operation, 'operation', WSDL_SOAP)!.getAttribute('soapAction')!]));
  const local = (qname: string | null) => (qname ?? '').replace(/^.*:/, '');
  const found = new Map<string, Operation>();
  for (const operation of elements(child(wsdl, 'portType', WSDL), 'operation', WSDL)) {
    const name = operation.getAttribute('name')!;
    found.set(name, {
      name, soapAction: actions.get(name)!,
      input: messages.get(local(child(operation, 'input', WSDL)!.getAttribute('message')))!,
      output: messages.get(local(child(operation, 'output', WSDL)!.getAttribute('message')))!,
    });
  }
  // Each complex type's element names in WSDL order (xsd:all or xsd:sequence), for answers with nil parts.
  const schema = child(child(wsdl, 'types', WSDL), 'schema', XSD)!;
  const types = new Map(elements(schema, 'complexType', XSD).map((type) => [type.getAttribute('name')!,
    elements(elements(type)[0], 'element', XSD).map((element) => element.getAttribute('name')!)]));
  return { operations: found, complexTypes: types };
})();

let scratch: string | undefined;
/** A per-process folder for the generated schemas and xmlsec1's input files, removed at exit. */
function scratchDir(): string {
  if (!scratch) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'face-stand-in-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    fs.copyFileSync(TYPES_FILE, path.join(dir, 'facturasspp2-types.xsd'));
    // RPC/literal (WSDL 1.1 section 3.5): the body element is the operation (its answer: operation +
    // "Response") in the service's namespace, one unqualified accessor per message part, in order.
    const accessor = (parts: Array<{ name: string; type: string }>) => `<xsd:complexType><xsd:sequence>${parts.map((part) => `<xsd:element name="${part.name}" type="${part.type}"/>`).join('')}</xsd:sequence></xsd:complexType>`;
    fs.writeFileSync(path.join(dir, 'facturasspp2-messages.xsd'), `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by test/helpers/face-stand-in.ts from the WSDL's messages (RPC/literal bodies). -->
<xsd:schema xmlns:xsd="${XSD}" xmlns:tns="${FACE}" targetNamespace="${FACE}">
<xsd:include schemaLocation="facturasspp2-types.xsd"/>
${[...operations.values()].map((operation) => `<xsd:element name="${operation.name}">${accessor(operation.input)}</xsd:element>\n<xsd:element name="${operation.name}Response">${accessor(operation.output)}</xsd:element>`).join('\n')}
</xsd:schema>
`);
    // A minimal SOAP 1.1 envelope (not the W3C/xmlsoap file): the header is taken as it comes (the
    // stand-in checks WS-Security itself); the body holds exactly one element, validated strictly.
    fs.writeFileSync(path.join(dir, 'envelope.xsd'), `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="${XSD}" targetNamespace="${SOAP}" elementFormDefault="qualified">
  <xs:import namespace="${FACE}" schemaLocation="facturasspp2-messages.xsd"/>
  <xs:element name="Envelope"><xs:complexType><xs:sequence>
    <xs:element name="Header" minOccurs="0"><xs:complexType><xs:sequence><xs:any namespace="##any" processContents="lax" minOccurs="0" maxOccurs="unbounded"/></xs:sequence><xs:anyAttribute namespace="##any" processContents="lax"/></xs:complexType></xs:element>
    <xs:element name="Body"><xs:complexType><xs:sequence><xs:any namespace="##other" processContents="strict"/></xs:sequence><xs:anyAttribute namespace="##any" processContents="lax"/></xs:complexType></xs:element>
  </xs:sequence><xs:anyAttribute namespace="##any" processContents="lax"/></xs:complexType></xs:element>
</xs:schema>
`);
    scratch = dir;
  }
  return scratch;
}

/** xmllint's complaint about a document against a schema, or undefined; offline, xmldsig from the vendor copy. */
function xmllint(xml: string, schema: string): string | undefined {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', schema, '-'], {
    input: xml, encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: CATALOG },
  });
  if (run.error) throw run.error;
  return run.status === 0 ? undefined : (run.stderr || `xmllint exited with ${run.status}`).replace(/^-:/gm, 'line ');
}

/** A whole SOAP 1.1 envelope (request or answer of this service) against the WSDL's schema; xmllint's complaint, or undefined. */
export function faceEnvelopeErrors(xml: string): string | undefined {
  return xmllint(xml, path.join(scratchDir(), 'envelope.xsd'));
}

/** Runs xmlsec1 on a document written to the scratch folder; the file is removed afterwards. */
function xmlsec1(args: string[], xml: Buffer | string, extra: Record<string, string> = {}): { ok: boolean; output: string; stdout: string } {
  const base = path.join(scratchDir(), `${process.pid}-${randomUUID()}`);
  const files = Object.fromEntries(Object.entries(extra).map(([name, content]) => {
    const file = `${base}-${name}`;
    fs.writeFileSync(file, content);
    return [name, file];
  }));
  fs.writeFileSync(`${base}.xml`, xml);
  try {
    const run = spawnSync('xmlsec1', [...args.map((arg) => files[arg] ?? arg), `${base}.xml`], { encoding: 'utf8' });
    if (run.error) throw run.error;
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim(), stdout: run.stdout };
  } finally {
    for (const file of [`${base}.xml`, ...Object.values(files)]) fs.rmSync(file, { force: true });
  }
}

const commonName = (certificate: X509Certificate) => /^CN=(.*)$/m.exec(certificate.subject)?.[1] ?? certificate.subject;

// ---------------------------------------------------------------------------------------------
// WS-Security (reference section 3.3)

/**
 * The WS-Security check of a request: answers the token certificate's CN (when readable) and what
 * is wrong, or no problem. Structure first (so that xmlsec1 cannot be pointed at anything but the
 * Body, the Timestamp and the token), then the timestamp, then the signature with xmlsec1:
 *   xmlsec1 --verify --enabled-key-data x509 --pubkey-cert-pem <token>.pem
 *     --id-attr:Id http://schemas.xmlsoap.org/soap/envelope/:Body
 *     --id-attr:Id http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd:Timestamp <request>.xml
 * (--id-attr matches the attribute by local name, so it registers the namespaced wsu:Id), then the
 * token certificate against the test authority.
 */
function wsSecurity(envelope: Element, raw: Buffer, authority: X509Certificate): { signedBy: string; problem?: string } {
  let signedBy = '';
  const fail = (problem: string) => ({ signedBy, problem });
  const header = child(envelope, 'Header', SOAP);
  const security = elements(header, 'Security', WSSE);
  if (security.length !== 1) return fail(security.length ? 'more than one wsse:Security header' : 'no wsse:Security header: the request is not signed');
  const wsse = security[0]!;
  if (wsse.getAttributeNS(SOAP, 'mustUnderstand') !== '1') return fail(`wsse:Security soapenv:mustUnderstand is "${wsse.getAttributeNS(SOAP, 'mustUnderstand') ?? ''}", not "1"`);

  const tokens = elements(wsse, 'BinarySecurityToken', WSSE);
  if (tokens.length !== 1) return fail(`${tokens.length} wsse:BinarySecurityToken, not one`);
  const token = tokens[0]!;
  const tokenId = token.getAttributeNS(WSU, 'Id') ?? '';
  if (token.getAttribute('ValueType') !== X509V3) return fail(`BinarySecurityToken ValueType ${token.getAttribute('ValueType')}, not ${X509V3}`);
  if (token.getAttribute('EncodingType') !== BASE64_BINARY) return fail(`BinarySecurityToken EncodingType ${token.getAttribute('EncodingType')}, not ${BASE64_BINARY}`);
  if (!tokenId) return fail('BinarySecurityToken without wsu:Id');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from((token.textContent ?? '').replace(/\s+/g, ''), 'base64'));
  } catch (error) {
    return fail(`BinarySecurityToken is not an X.509 certificate: ${(error as Error).message}`);
  }
  signedBy = commonName(certificate);

  const timestamps = elements(wsse, 'Timestamp', WSU);
  if (timestamps.length !== 1 || descendants(envelope, 'Timestamp', WSU).length !== 1) return fail('not exactly one wsu:Timestamp, in wsse:Security');
  const timestamp = timestamps[0]!;
  const timestampId = timestamp.getAttributeNS(WSU, 'Id') ?? '';
  if (!timestampId) return fail('wsu:Timestamp without wsu:Id');
  const created = Date.parse(child(timestamp, 'Created', WSU)?.textContent?.trim() ?? '');
  const expires = Date.parse(child(timestamp, 'Expires', WSU)?.textContent?.trim() ?? '');
  const now = Date.now();
  if (Number.isNaN(created) || Number.isNaN(expires)) return fail('wsu:Timestamp needs wsu:Created and wsu:Expires (xs:dateTime)');
  if (expires <= now) return fail(`wsu:Timestamp expired at ${new Date(expires).toISOString()} (now ${new Date(now).toISOString()})`);
  if (created > now + SKEW_MS) return fail(`wsu:Timestamp created ${new Date(created).toISOString()}, in the future (now ${new Date(now).toISOString()})`);
  if (expires <= created) return fail('wsu:Timestamp expires before it is created');

  const bodies = descendants(envelope, 'Body', SOAP);
  const body = child(envelope, 'Body', SOAP);
  if (!body || bodies.length !== 1) return fail('not exactly one soapenv:Body');
  const bodyId = body.getAttributeNS(WSU, 'Id') ?? '';
  if (!bodyId) return fail('soapenv:Body without wsu:Id: it cannot be signed');
  // Ids unique in the whole document: a second element with the Body's or Timestamp's Id could be what the signature covers.
  const ids = new Map<string, number>();
  for (const element of Array.from(envelope.getElementsByTagName('*'))) {
    for (const attribute of Array.from(element.attributes)) if (/^id$/i.test(attribute.localName ?? '')) ids.set(attribute.value, (ids.get(attribute.value) ?? 0) + 1);
  }
  const repeated = [...ids].filter(([, count]) => count > 1).map(([id]) => id);
  if (repeated.length) return fail(`Id attribute values not unique: ${repeated.join(', ')}`);

  const signatures = descendants(envelope, 'Signature', DS);
  if (signatures.length !== 1 || signatures[0]!.parentNode !== wsse) return fail('not exactly one ds:Signature, in wsse:Security');
  const signedInfo = child(signatures[0], 'SignedInfo', DS);
  const c14n = child(signedInfo, 'CanonicalizationMethod', DS)?.getAttribute('Algorithm');
  if (c14n !== EXC_C14N) return fail(`SignedInfo CanonicalizationMethod ${c14n}, not exclusive C14N ${EXC_C14N}`);
  const uris = elements(signedInfo, 'Reference', DS).map((reference) => reference.getAttribute('URI') ?? '');
  if (!uris.includes(`#${bodyId}`)) return fail(`the signature does not reference the soapenv:Body (#${bodyId}); it references ${uris.join(', ')}`);
  if (!uris.includes(`#${timestampId}`)) return fail(`the signature does not reference the wsu:Timestamp (#${timestampId}); it references ${uris.join(', ')}`);
  const keyInfo = elements(child(signatures[0], 'KeyInfo', DS));
  const strReference = elements(keyInfo[0], 'Reference', WSSE);
  if (keyInfo.length !== 1 || keyInfo[0]!.localName !== 'SecurityTokenReference' || keyInfo[0]!.namespaceURI !== WSSE || elements(keyInfo[0]).length !== 1 || strReference.length !== 1) {
    return fail('ds:KeyInfo must hold only wsse:SecurityTokenReference/wsse:Reference');
  }
  if (strReference[0]!.getAttribute('URI') !== `#${tokenId}`) return fail(`SecurityTokenReference points at ${strReference[0]!.getAttribute('URI')}, not the token #${tokenId}`);
  if (strReference[0]!.getAttribute('ValueType') !== X509V3) return fail(`SecurityTokenReference ValueType ${strReference[0]!.getAttribute('ValueType')}, not ${X509V3}`);

  const verdict = xmlsec1(['--verify', '--enabled-key-data', 'x509', '--pubkey-cert-pem', 'token.pem',
    '--id-attr:Id', `${SOAP}:Body`, '--id-attr:Id', `${WSU}:Timestamp`], raw, { 'token.pem': certificate.toString() });
  if (!verdict.ok) return fail(`xmlsec1 does not verify the signature: ${verdict.output}`);

  if (!certificate.checkIssued(authority) || !certificate.verify(authority.publicKey)) {
    return fail(`the token certificate ${certificate.subject.replace(/\n/g, ', ')} was not issued by the test authority (issuer ${certificate.issuer.replace(/\n/g, ', ')})`);
  }
  if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now) return fail(`the token certificate is not valid now (${certificate.validFrom} to ${certificate.validTo})`);
  return { signedBy };
}

// ---------------------------------------------------------------------------------------------
// The invoice (reference sections 1 and 2)

interface Finding { codigo: string; detail: string; tool?: boolean }
interface InvoiceFacts { modality?: string; invoices: number; seller: string; numero: string; serie?: string; fecha: string; centres: Array<{ code: string; role: string }> }

/** Schema (408), signature (428) and policy (440) findings of an .xsig; each is FACe refusing it. */
function invoiceFindings(xml: string, authority: string): { findings: Finding[]; root?: Element } {
  let root: Element;
  try {
    root = parse(xml);
  } catch (error) {
    return { findings: [{ codigo: '408', detail: `not XML: ${(error as Error).message}`, tool: true }] };
  }
  const findings: Finding[] = [];
  const signatures = descendants(root, 'Signature', DS);

  // Schema: the invoice without its signature against Facturae 3.2.2; then the signature alone
  // against xmldsig + XAdES, its X509SerialNumbers of more than 24 digits shortened first: libxml2
  // refuses xs:integer values that long (reference section 1.6), a limit of the tool, not of the schema.
  const unsigned = parse(xml);
  for (const signature of elements(unsigned, 'Signature', DS)) unsigned.removeChild(signature);
  const schema = xmllint(serialize(unsigned), FACTURAE_SCHEMA);
  if (schema) findings.push({ codigo: '408', detail: `Facturae 3.2.2 schema (${path.basename(FACTURAE_SCHEMA)}), signature removed: ${schema}`, tool: true });
  else if (signatures.length === 1) {
    const signature = parse(serialize(signatures[0]!));
    for (const serial of descendants(signature, 'X509SerialNumber', DS)) {
      if (/^\d{25,}$/.test((serial.textContent ?? '').trim())) serial.textContent = '1';
    }
    const complaint = xmllint(serialize(signature), SIGNATURE_SCHEMA);
    if (complaint) findings.push({ codigo: '408', detail: `ds:Signature against xmldsig + XAdES 1.3.2 (checks/signature-wrapper.xsd): ${complaint}`, tool: true });
  }

  // Signature: one enveloped XAdES signature, last child of the root, covering the whole document,
  // verified by xmlsec1 with the test authority trusted. --enabled-key-data x509: the key must come
  // from a certificate in X509Data that chains to that authority; without it xmlsec1 takes a
  // ds:KeyValue as it comes and "verifies" a signature by anyone (the official test invoice has one).
  const last = elements(root).at(-1);
  const references = elements(child(signatures[0], 'SignedInfo', DS), 'Reference', DS);
  const whole = references.find((reference) => reference.getAttribute('URI') === ''
    && elements(child(reference, 'Transforms', DS), 'Transform', DS).some((transform) => transform.getAttribute('Algorithm') === ENVELOPED));
  const signedProperties = descendants(root, 'SignedProperties', XADES)[0];
  if (signatures.length !== 1) findings.push({ codigo: '428', detail: `${signatures.length} ds:Signature elements, not one` });
  else if (signatures[0] !== last) findings.push({ codigo: '428', detail: 'the ds:Signature is not the last child of the root (enveloped signature)' });
  else if (!whole) findings.push({ codigo: '428', detail: 'no ds:Reference URI="" with the enveloped-signature transform: the invoice itself is not signed' });
  else if (!signedProperties || !references.some((reference) => reference.getAttribute('URI') === `#${signedProperties.getAttribute('Id')}`)) {
    findings.push({ codigo: '428', detail: 'the signature does not reference its xades:SignedProperties (not XAdES)' });
  } else {
    const verdict = xmlsec1(['--verify', '--enabled-key-data', 'x509', '--trusted-pem', authority,
      '--id-attr:Id', `${XADES}:SignedProperties`, '--id-attr:Id', `${DS}:KeyInfo`], xml);
    if (!verdict.ok) findings.push({ codigo: '428', detail: `xmlsec1 does not verify the XAdES signature against the test authority: ${verdict.output}`, tool: true });
  }

  // Policy: XAdES-EPES with Facturae v3.1.
  const policy = descendants(root, 'SignaturePolicyId', XADES)[0];
  const identifier = (child(child(policy, 'SigPolicyId', XADES), 'Identifier', XADES)?.textContent ?? '').trim();
  const hash = child(policy, 'SigPolicyHash', XADES);
  const algorithm = child(hash, 'DigestMethod', DS)?.getAttribute('Algorithm') ?? '';
  const digest = (child(hash, 'DigestValue', DS)?.textContent ?? '').trim();
  if (!policy) findings.push({ codigo: '440', detail: 'no xades:SignaturePolicyIdentifier/SignaturePolicyId (XAdES-EPES with the Facturae policy is required)' });
  else if (identifier !== POLICY.identifier || algorithm !== POLICY.algorithm || digest !== POLICY.digest) {
    findings.push({ codigo: '440', detail: `signature policy ${identifier} (${algorithm} ${digest}) is not Facturae v3.1 ${POLICY.identifier} (${POLICY.algorithm} ${POLICY.digest})` });
  }
  return { findings, root };
}

/** What FACe routes and deduplicates on (namespace-agnostic: Facturae children are unqualified). */
function invoiceFacts(root: Element): InvoiceFacts {
  const invoices = elements(child(root, 'Invoices'), 'Invoice');
  const invoice = invoices[0];
  const serie = textOf(invoice, 'InvoiceHeader', 'InvoiceSeriesCode');
  return {
    modality: textOf(root, 'FileHeader', 'Modality'),
    invoices: invoices.length,
    seller: textOf(root, 'Parties', 'SellerParty', 'TaxIdentification', 'TaxIdentificationNumber') ?? '',
    numero: textOf(invoice, 'InvoiceHeader', 'InvoiceNumber') ?? '',
    ...(serie ? { serie } : {}),
    fecha: textOf(invoice, 'InvoiceIssueData', 'IssueDate') ?? '',
    centres: elements(at(root, 'Parties', 'BuyerParty', 'AdministrativeCentres'), 'AdministrativeCentre')
      .map((centre) => ({ code: textOf(centre, 'CentreCode') ?? '', role: textOf(centre, 'RoleTypeCode') ?? '' })),
  };
}

// ---------------------------------------------------------------------------------------------
// Answers

const state = <Code extends string>(codigo: Code, motivo = ''): FaceState<Code> => ({ codigo, descripcion: STATES[codigo]!.descripcion, motivo });
const stateXml = (name: string, value: FaceState<string>) => `<${name}><codigo>${value.codigo}</codigo><descripcion>${escape(value.descripcion)}</descripcion><motivo>${escape(value.motivo)}</motivo></${name}>`;
const consultarXml = (invoice: FaceInvoice) => `<numeroRegistro>${escape(invoice.numeroRegistro)}</numeroRegistro>${stateXml('tramitacion', invoice.tramitacion)}${stateXml('anulacion', invoice.anulacion)}`;

function fault(code: 'Client' | 'Server', text: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV="${SOAP}"><SOAP-ENV:Body><SOAP-ENV:Fault>` +
    `<faultcode>SOAP-ENV:${code}</faultcode><faultstring>${escape(text)}</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>`;
}

/**
 * An answer in FACe's shape: `ns1:<operation>Response/return` with `resultado` first, then the
 * return type's other elements as given, or nil (all are nillable in the WSDL) when not given.
 */
function answerXml(operation: Operation, codigo: string, parts: Record<string, string> = {}, descripcion = RESULTS[codigo]!): string {
  const type = operation.output[0]!.type.replace(/^.*:/, '');
  const rest = complexTypes.get(type)!.filter((name) => name !== 'resultado')
    .map((name) => (parts[name] === undefined ? `<${name} xsi:nil="true"/>` : `<${name}>${parts[name]}</${name}>`)).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV="${SOAP}" xmlns:ns1="${FACE}" xmlns:xsi="${XSI}"><SOAP-ENV:Body>` +
    `<ns1:${operation.name}Response><return><resultado><codigo>${codigo}</codigo><descripcion>${escape(descripcion)}</descripcion>` +
    `<codigoSeguimiento>${randomBytes(8).toString('hex')}</codigoSeguimiento></resultado>${rest}</return></ns1:${operation.name}Response></SOAP-ENV:Body></SOAP-ENV:Envelope>`;
}

const receptionTime = () => new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false,
}).format(new Date());

let registrations = Math.floor(Math.random() * 1e4) * 1e5;
/** Registry numbers in the 2025 REST manual's shape (`REGAGE24e0000009xxx`), unique in the process. */
const nextRegistro = () => `REGAGE${String(new Date().getFullYear()).slice(2)}e${String(++registrations).padStart(10, '0')}`;

// ---------------------------------------------------------------------------------------------

export async function startFaceStandIn(certificates: Certificates): Promise<FaceStandIn> {
  const authority = new X509Certificate(fs.readFileSync(certificates.caFile));
  const held = (numeroRegistro: string): FaceInvoice => {
    const invoice = standIn.invoices.get(numeroRegistro);
    if (!invoice) throw new Error(`the FACe stand-in holds no invoice ${numeroRegistro}`);
    return invoice;
  };
  const standIn: FaceStandIn = {
    url: '', received: [], refused: [], invalid: [], relations: [{ oc: 'P00000010', og: 'P00000010', ut: 'P00000010' }], invoices: new Map(), failures: [],
    setState(numeroRegistro, tramitacion, motivo = '') {
      held(numeroRegistro).tramitacion = state(tramitacion, motivo);
    },
    acceptCancellation(numeroRegistro) {
      const invoice = held(numeroRegistro);
      assert.equal(invoice.anulacion.codigo, '4200', `the cancellation of ${numeroRegistro} was not requested`);
      invoice.anulacion = state('4300', invoice.anulacion.motivo);
      invoice.tramitacion = state('3100');
    },
    rejectCancellation(numeroRegistro, motivo = '') {
      const invoice = held(numeroRegistro);
      assert.equal(invoice.anulacion.codigo, '4200', `the cancellation of ${numeroRegistro} was not requested`);
      invoice.anulacion = state('4400', motivo);
    },
    register(invoice = {}) {
      const numeroRegistro = nextRegistro();
      const relation = standIn.relations[0] ?? { oc: 'P00000010', og: 'P00000010', ut: 'P00000010' };
      standIn.invoices.set(numeroRegistro, {
        organoGestor: relation.og, unidadTramitadora: relation.ut, oficinaContable: relation.oc, identificadorEmisor: 'B12345674',
        numeroFactura: numeroRegistro, fechaExpedicion: new Date().toISOString().slice(0, 10), fechaRecepcion: receptionTime(),
        ...invoice, numeroRegistro, tramitacion: state('1200'), anulacion: state('4100'),
      });
      return numeroRegistro;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function enviarFactura(operation: Operation, call: Element, entry: FaceRequest): string {
    const request = child(call, 'request', null);
    const file = child(request, 'factura', null);
    const nombre = textOf(file, 'nombre') ?? '';
    const mime = textOf(file, 'mime') ?? '';
    const encoded = (textOf(file, 'factura') ?? '').replace(/\s+/g, '');
    entry.attachments = elements(child(request, 'anexos', null), 'anexo', null).map((anexo) => ({
      nombre: textOf(anexo, 'nombre') ?? '', mime: textOf(anexo, 'mime') ?? '', bytes: Buffer.from((textOf(anexo, 'anexo') ?? '').replace(/\s+/g, ''), 'base64').length,
    }));
    if (!encoded || !textOf(request, 'correo')) return answerXml(operation, '310');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return answerXml(operation, '408', {}, `${RESULTS[408]}: la factura no está codificada en base64`);
    const xml = Buffer.from(encoded, 'base64').toString('utf8');
    entry.invoice = xml;
    if (mime !== 'application/xml') return answerXml(operation, '311');
    if (!nombre.toLowerCase().endsWith('.xsig')) return answerXml(operation, '408', {}, `${RESULTS[408]}: el fichero debe tener la extensión .xsig`);
    if (entry.attachments.length > MAX_ATTACHMENTS) return answerXml(operation, '433');
    if (entry.attachments.some((anexo) => anexo.mime !== 'application/pdf')) return answerXml(operation, '312');

    const { findings, root } = invoiceFindings(xml, certificates.caFile);
    for (const finding of findings) standIn.invalid.push(`enviarFactura ${nombre}: ${finding.codigo} ${finding.detail}`);
    if (findings.length || !root) return answerXml(operation, findings[0]!.codigo);
    const facts = invoiceFacts(root);
    if (facts.modality !== 'I') return answerXml(operation, '419');
    if (facts.invoices !== 1) return answerXml(operation, '420');
    if (facts.centres.length < 3) return answerXml(operation, '416');
    if (facts.centres.some((centre) => !centre.code)) return answerXml(operation, '417');
    const role = (code: string) => facts.centres.filter((centre) => centre.role === code);
    if (['01', '02', '03'].some((code) => role(code).length !== 1)) return answerXml(operation, '418');
    const oc = role('01')[0]!.code;
    const og = role('02')[0]!.code;
    const ut = role('03')[0]!.code;
    if (!standIn.relations.some((relation) => relation.oc === oc && relation.og === og && relation.ut === ut)) {
      return answerXml(operation, '412', {}, `${RESULTS[412]}: OG ${og}, UT ${ut}, OC ${oc}`);
    }
    // A rejected (2600) or cancelled (3100) invoice may be sent again (reference section 3.6).
    const duplicate = [...standIn.invoices.values()].some((invoice) => invoice.identificadorEmisor === facts.seller && invoice.numeroFactura === facts.numero
      && (invoice.serieFactura ?? '') === (facts.serie ?? '') && invoice.fechaExpedicion === facts.fecha && !['2600', '3100'].includes(invoice.tramitacion.codigo));
    if (duplicate) return answerXml(operation, '415');

    const numeroRegistro = standIn.register({
      organoGestor: og, unidadTramitadora: ut, oficinaContable: oc, identificadorEmisor: facts.seller,
      numeroFactura: facts.numero, ...(facts.serie ? { serieFactura: facts.serie } : {}), fechaExpedicion: facts.fecha, xsig: xml,
    });
    const invoice = standIn.invoices.get(numeroRegistro)!;
    return answerXml(operation, '0', {
      factura: `<numeroRegistro>${numeroRegistro}</numeroRegistro><organoGestor>${escape(og)}</organoGestor><unidadTramitadora>${escape(ut)}</unidadTramitadora>` +
        `<oficinaContable>${escape(oc)}</oficinaContable><identificadorEmisor>${escape(invoice.identificadorEmisor)}</identificadorEmisor>` +
        `${leaf('numeroFactura', invoice.numeroFactura)}${leaf('serieFactura', invoice.serieFactura)}<fechaRecepcion>${invoice.fechaRecepcion}</fechaRecepcion>`,
    });
  }

  function anularFactura(operation: Operation, call: Element): string {
    const numeroRegistro = textOf(call, 'numeroRegistro') ?? '';
    const motivo = textOf(call, 'motivo') ?? '';
    if (!numeroRegistro) return answerXml(operation, '313');
    const invoice = standIn.invoices.get(numeroRegistro);
    if (!invoice) return answerXml(operation, '303');
    if (!motivo) return answerXml(operation, '302');
    if (motivo.length > 255) return answerXml(operation, '900');
    if (invoice.anulacion.codigo === '4300' || invoice.tramitacion.codigo === '3100') return answerXml(operation, '304');
    if (invoice.tramitacion.codigo === '2500') return answerXml(operation, '306');
    if (invoice.tramitacion.codigo === '2600') return answerXml(operation, '305');
    if (invoice.anulacion.codigo === '4200') return answerXml(operation, '307');
    invoice.anulacion = state('4200', motivo);
    return answerXml(operation, '0', { factura: `<numeroRegistro>${escape(numeroRegistro)}</numeroRegistro><mensaje>Anulación solicitada correctamente</mensaje>` });
  }

  function operate(operation: Operation, call: Element, entry: FaceRequest): string {
    switch (operation.name) {
      case 'enviarFactura': return enviarFactura(operation, call, entry);
      case 'consultarFactura': {
        const numeroRegistro = textOf(call, 'numeroRegistro') ?? '';
        if (!numeroRegistro) return answerXml(operation, '313');
        const invoice = standIn.invoices.get(numeroRegistro);
        return invoice ? answerXml(operation, '0', { factura: consultarXml(invoice) }) : answerXml(operation, '303');
      }
      case 'consultarListadoFacturas': {
        const numeros = elements(child(call, 'request', null), 'numeroRegistro', null).map((node) => (node.textContent ?? '').trim());
        if (numeros.length > MAX_LIST) return answerXml(operation, '309');
        // An unknown number is answered per item, 303 with an empty factura (as eFACT's documented example; the WSDL makes factura mandatory).
        const empty = { codigo: '', descripcion: '', motivo: '' };
        return answerXml(operation, '0', {
          facturas: numeros.map((numero) => {
            const invoice = standIn.invoices.get(numero);
            return `<consultarListadoFactura><codigo>${invoice ? '0' : '303'}</codigo><descripcion>${RESULTS[invoice ? 0 : 303]}</descripcion>` +
              `<factura>${invoice ? consultarXml(invoice) : `<numeroRegistro>${escape(numero)}</numeroRegistro>${stateXml('tramitacion', empty)}${stateXml('anulacion', empty)}`}</factura></consultarListadoFactura>`;
          }).join(''),
        });
      }
      case 'anularFactura': return anularFactura(operation, call);
      case 'consultarEstados':
        return answerXml(operation, '0', {
          estados: Object.entries(STATES).map(([codigo, { nombre, descripcion }]) => `<estado><nombre>${escape(nombre)}</nombre><codigo>${codigo}</codigo><descripcion>${escape(descripcion)}</descripcion></estado>`).join(''),
        });
      case 'consultarUnidades': {
        const unit = (code: string) => `<codigo>${escape(code)}</codigo><nombre>UNIDAD ${escape(code)}</nombre>`;
        return answerXml(operation, '0', {
          relaciones: standIn.relations.map((relation) => `<relacion><organoGestor>${unit(relation.og)}</organoGestor><unidadTramitadora>${unit(relation.ut)}</unidadTramitadora><oficinaContable>${unit(relation.oc)}</oficinaContable></relacion>`).join(''),
        });
      }
      default:
        throw new Error(`operation ${operation.name} is in the WSDL but not modelled by the stand-in`);
    }
  }

  type Reply = 'drop' | { status: number; body?: string; type?: string };
  const soapFault = (code: 'Client' | 'Server', text: string, invalid = true): Reply => {
    if (invalid) standIn.invalid.push(text);
    return { status: 500, body: fault(code, text) };
  };

  async function handle(request: IncomingMessage, raw: Buffer): Promise<Reply> {
    const url = new URL(request.url ?? '/', 'https://127.0.0.1');
    if (url.pathname !== '/facturasspp2') {
      standIn.invalid.push(`${request.method} ${request.url}: not the facturasspp2 service`);
      return { status: 404 };
    }
    if (request.method === 'GET' && url.search.toLowerCase() === '?wsdl') {
      const wsdl = fs.readFileSync(WSDL_FILE, 'utf8').replace(/(<soap:address location=")[^"]*"/, `$1${standIn.url}"`);
      return { status: 200, body: wsdl, type: 'text/xml; charset=utf-8' };
    }
    if (request.method !== 'POST') {
      standIn.invalid.push(`${request.method} ${request.url}: the service takes POST only`);
      return { status: 405 };
    }
    const failure = standIn.failures.shift();
    if (failure === 'drop') return 'drop';
    if (failure === 'http-500') return { status: 500, body: '<html><body><h1>500 Internal Server Error</h1></body></html>', type: 'text/html' };
    if (failure === 'fault') return soapFault('Server', 'Servicio no disponible temporalmente', false);

    // Transport (reference section 3.2): a correct Content-Length is required, at most 8 MB.
    const length = request.headers['content-length'];
    if (length === undefined || Number(length) !== raw.length) {
      standIn.invalid.push(`POST ${request.url}: Content-Length ${length ?? '(none)'}, body of ${raw.length} bytes`);
      return { status: 411 };
    }
    if (raw.length > MAX_BODY) {
      standIn.invalid.push(`POST ${request.url}: body of ${raw.length} bytes, more than 8 MB`);
      return { status: 413 };
    }
    const type = (request.headers['content-type'] ?? '').replace(/\s+/g, '').toLowerCase();
    if (type !== 'text/xml;charset=utf-8') {
      if (!type.startsWith('text/xml')) return soapFault('Client', `Content-Type ${request.headers['content-type']}: SOAP 1.1 is text/xml;charset=UTF-8`);
      standIn.invalid.push(`Content-Type ${request.headers['content-type']}, not text/xml;charset=UTF-8`);
    }
    const action = request.headers.soapaction;
    const named = /^"https:\/\/webservice\.face\.gob\.es#(\w+)"$/.exec(String(action ?? ''))?.[1];
    const operation = named ? operations.get(named) : undefined;
    if (!operation) return soapFault('Client', `SOAPAction ${action === undefined ? '(none)' : String(action)} is none of the WSDL's, quoted: "https://webservice.face.gob.es#<operation>"`);
    const body = raw.toString('utf8');
    if (!body.trim()) return { status: 200, body: answerXml(operation, '101'), type: 'text/xml; charset=utf-8' };

    let envelope: Element;
    try {
      envelope = parse(body);
    } catch (error) {
      return soapFault('Client', `${operation.name}: the request is not XML: ${(error as Error).message}`);
    }
    const call = elements(child(envelope, 'Body', SOAP))[0];
    if (envelope.namespaceURI !== SOAP || envelope.localName !== 'Envelope' || !call) return soapFault('Client', `${operation.name}: not a SOAP 1.1 envelope with a body`);
    if (call.namespaceURI !== FACE || call.localName !== operation.name) {
      return soapFault('Client', `the body element {${call.namespaceURI ?? ''}}${call.localName} is not the SOAPAction's {${FACE}}${operation.name}`);
    }

    const security = wsSecurity(envelope, raw, authority);
    const entry: FaceRequest = { operation: operation.name, signedBy: security.signedBy, body, resultado: '' };
    let answer: string;
    if (security.problem) {
      standIn.refused.push(`${operation.name}${security.signedBy ? ` signed by ${security.signedBy}` : ''}: ${security.problem}`);
      answer = answerXml(operation, '100');
    } else {
      const invalid = faceEnvelopeErrors(body);
      if (invalid) return soapFault('Client', `${operation.name}: the request is not what the WSDL says: ${invalid}`);
      answer = operate(operation, call, entry);
    }
    entry.resultado = textOf(elements(child(parse(answer), 'Body', SOAP))[0], 'return', 'resultado', 'codigo') ?? '';
    standIn.received.push(entry);
    const own = faceEnvelopeErrors(answer);
    assert.equal(own, undefined, `the stand-in's own answer fails the WSDL's schema: ${own}\n${answer}`);
    return { status: 200, body: answer, type: 'text/xml; charset=utf-8' };
  }

  const server: Server = createServer({
    key: fs.readFileSync(path.join(certificates.dir, 'server.key')),
    cert: fs.readFileSync(path.join(certificates.dir, 'server.pem')),
  }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      handle(request, Buffer.concat(chunks)).then((reply) => {
        if (reply === 'drop') {
          request.socket.destroy();
          return;
        }
        response.writeHead(reply.status, reply.body === undefined ? {} : { 'content-type': reply.type ?? 'text/xml; charset=utf-8' }).end(reply.body);
      }, (error: Error) => {
        // A fault of the stand-in itself (its own answer off the WSDL): the test must see it.
        standIn.invalid.push(`stand-in error on ${request.url}: ${error.stack ?? error.message}`);
        response.writeHead(500, { 'content-type': 'text/xml; charset=utf-8' }).end(fault('Server', error.message));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/facturasspp2`;
  return standIn;
}

// ---------------------------------------------------------------------------------------------

/**
 * Signs a SOAP 1.1 envelope as FACe wants (reference section 3.3), for tests that play the client:
 * adds a wsu:Id to the Body and a wsse:Security header (mustUnderstand 1) with the certificate as
 * BinarySecurityToken, a Timestamp (Created `options.now`, default now; Expires `ttlSeconds` later,
 * default 300) and a ds:Signature template (exclusive C14N, rsa-sha256, sha256 references to the
 * Body and the Timestamp, KeyInfo by SecurityTokenReference), which xmlsec1 --sign fills in:
 * independent of our client's own signer.
 */
export function signSoapForTest(envelope: string, keyPem: string, certPem: string, options: { now?: Date; ttlSeconds?: number } = {}): string {
  const prefix = /<([\w.-]+):Envelope[\s>]/.exec(envelope)?.[1];
  assert.ok(prefix, 'no prefixed SOAP Envelope element to sign');
  const id = randomUUID();
  const created = options.now ?? new Date();
  const expires = new Date(created.getTime() + (options.ttlSeconds ?? 300) * 1000);
  const token = new X509Certificate(certPem).raw.toString('base64');
  const reference = (uri: string) => `<ds:Reference URI="#${uri}"><ds:Transforms><ds:Transform Algorithm="${EXC_C14N}"/></ds:Transforms>` +
    '<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference>';
  const security = `<wsse:Security xmlns:wsse="${WSSE}" xmlns:wsu="${WSU}" ${prefix}:mustUnderstand="1">` +
    `<wsse:BinarySecurityToken EncodingType="${BASE64_BINARY}" ValueType="${X509V3}" wsu:Id="X509-${id}">${token}</wsse:BinarySecurityToken>` +
    `<ds:Signature xmlns:ds="${DS}" Id="SIG-${id}"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="${EXC_C14N}"/>` +
    `<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>${reference(`TS-${id}`)}${reference(`Body-${id}`)}</ds:SignedInfo>` +
    `<ds:SignatureValue/><ds:KeyInfo><wsse:SecurityTokenReference><wsse:Reference URI="#X509-${id}" ValueType="${X509V3}"/></wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>` +
    `<wsu:Timestamp wsu:Id="TS-${id}"><wsu:Created>${created.toISOString()}</wsu:Created><wsu:Expires>${expires.toISOString()}</wsu:Expires></wsu:Timestamp></wsse:Security>`;
  let template = envelope.replace(new RegExp(`<${prefix}:Body(?=[\\s>/])`), `<${prefix}:Body xmlns:wsu="${WSU}" wsu:Id="Body-${id}"`);
  if (new RegExp(`<${prefix}:Header\\s*/>`).test(template)) template = template.replace(new RegExp(`<${prefix}:Header\\s*/>`), `<${prefix}:Header>${security}</${prefix}:Header>`);
  else if (new RegExp(`<${prefix}:Header[\\s>]`).test(template)) template = template.replace(new RegExp(`(<${prefix}:Header[^>]*>)`), `$1${security}`);
  else template = template.replace(`<${prefix}:Body`, `<${prefix}:Header>${security}</${prefix}:Header><${prefix}:Body`);
  const signed = xmlsec1(['--sign', '--privkey-pem', 'key.pem', '--id-attr:Id', `${SOAP}:Body`, '--id-attr:Id', `${WSU}:Timestamp`],
    template, { 'key.pem': keyPem });
  assert.ok(signed.ok, `xmlsec1 --sign: ${signed.output}`);
  return signed.stdout;
}
