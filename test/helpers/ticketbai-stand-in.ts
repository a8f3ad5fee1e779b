import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DOMParser, onErrorStopParsing, type Element } from '@xmldom/xmldom';
import type { Certificates } from './aeat-stand-in.ts';

/**
 * A local stand-in of the three Basque treasuries' TicketBAI services (shared/reference/ticketbai.md
 * sections 6 to 9), for tests of our sender: HTTPS on 127.0.0.1 with the test authority of
 * `makeCertificates()` (aeat-stand-in.ts), refusing any client certificate that authority did not
 * issue. Araba and Gipuzkoa take the raw XML file over REST and answer a `TicketBaiResponse`;
 * Bizkaia takes a gzip LROE request wrapping the files in base64 and answers a gzip LROE answer with
 * the `eus-bizkaia-n3-*` headers. Every file is checked against the treasuries' schemas, its XAdES
 * signature by xmlsec1 against the test authority and the territory's signature policy, its TBAI
 * identifier recomputed here, its chaining against the last alta held for the issuer; the stand-in
 * holds what it accepted, so duplicates and cancellations are answered as the services do. Every
 * answer it gives is validated against the answer schema too. What our sender got wrong lands in
 * `invalid`, `badSignatures` and `chainErrors`, which a test expects empty.
 */

const VENDOR = path.resolve(import.meta.dirname, '../vendor/ticketbai');
const CATALOG = path.join(VENDOR, 'catalog.xml');
const LROE_SCHEMAS = path.join(VENDOR, 'xsd/lroe');
const RESPONSE_SCHEMA = path.join(VENDOR, 'xsd/ticketbai-1.2/TicketBAIResponse.xsd');
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const XADES = 'http://uri.etsi.org/01903/v1.3.2#';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const LROE_NS = 'https://www.batuz.eus/fitxategiak/batuz/LROE/esquemas/';

export type Territory = 'araba' | 'bizkaia' | 'gipuzkoa';
export type TicketbaiKind = 'alta' | 'anulacion' | 'zuzendu-alta' | 'zuzendu-baja';

/** Each territory's XAdES policy (reference section 2.3); Bizkaia's reciprocity clause is not modelled: our sender signs with the territory's own. */
const POLICIES: Record<Territory, { identifier: string; digest: string }> = {
  araba: { identifier: 'https://ticketbai.araba.eus/tbai/sinadura/', digest: '4Vk3uExj7tGn9DyUCPDsV9HRmK6KZfYdRiW3StOjcQA=' },
  bizkaia: {
    identifier: 'https://www.batuz.eus/fitxategiak/batuz/ticketbai/sinadura_elektronikoaren_zehaztapenak_especificaciones_de_la_firma_electronica_v1_0.pdf',
    digest: 'Quzn98x3PMbSHwbUzaj5f5KOpiH0u8bvmwbbbNkO9Es=',
  },
  gipuzkoa: { identifier: 'https://www.gipuzkoa.eus/ticketbai/sinadura', digest: 'vSe1CH7eAFVkGN0X2Y7Nl9XGUoBnziDA5BGUSsyt8mg=' },
};

const ROOTS: Record<TicketbaiKind, { namespace: string; name: string }> = {
  alta: { namespace: 'urn:ticketbai:emision', name: 'TicketBai' },
  anulacion: { namespace: 'urn:ticketbai:anulacion', name: 'AnulaTicketBai' },
  'zuzendu-alta': { namespace: 'urn:ticketbai:zuzendu-alta', name: 'SubsanacionModificacionTicketBAI' },
  'zuzendu-baja': { namespace: 'urn:ticketbai:zuzendu-baja', name: 'SubsanacionAnulacionTicketBAI' },
};

const REST_PATHS: Record<'araba' | 'gipuzkoa', Record<string, TicketbaiKind>> = {
  araba: {
    '/TicketBAI/v1/facturas/': 'alta',
    '/TicketBAI/v1/anulaciones/': 'anulacion',
    '/TicketBAI/v1/facturas/subsanarmodificar': 'zuzendu-alta',
    '/TicketBAI/v1/anulaciones/baja': 'zuzendu-baja',
  },
  gipuzkoa: { '/sarrerak/alta': 'alta', '/sarrerak/baja': 'anulacion', '/sarrerak/zuzendu-alta': 'zuzendu-alta', '/sarrerak/zuzendu-baja': 'zuzendu-baja' },
};
const LROE_PATH = '/N3B4000M/aurkezpena';

/** The four LROE chapter 1.1 (con SG) requests Bizkaia takes, with their answers (reference section 6.2). */
const LROE_REQUESTS: Record<string, { mode: '240' | '140'; kind: 'alta' | 'anulacion'; operacion: string; schema: string; answer: string; answerSchema: string; list: string; item: string }> = {
  LROEPJ240FacturasEmitidasConSGAltaPeticion: {
    mode: '240', kind: 'alta', operacion: 'A00', schema: 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd',
    answer: 'LROEPJ240FacturasEmitidasConSGAltaRespuesta', answerSchema: 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaRespuesta_V1_0_1.xsd', list: 'FacturasEmitidas', item: 'FacturaEmitida',
  },
  LROEPJ240FacturasEmitidasConSGAnulacionPeticion: {
    mode: '240', kind: 'anulacion', operacion: 'AN0', schema: 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd',
    answer: 'LROEPJ240FacturasEmitidasConSGAnulacionRespuesta', answerSchema: 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionRespuesta_V1_0_0.xsd', list: 'FacturasEmitidas', item: 'FacturaEmitida',
  },
  LROEPF140IngresosConFacturaConSGAltaPeticion: {
    mode: '140', kind: 'alta', operacion: 'A00', schema: 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd',
    answer: 'LROEPF140IngresosConFacturaConSGAltaRespuesta', answerSchema: 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaRespuesta_V1_0_2.xsd', list: 'Ingresos', item: 'Ingreso',
  },
  LROEPF140IngresosConFacturaConSGAnulacionPeticion: {
    mode: '140', kind: 'anulacion', operacion: 'AN0', schema: 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd',
    answer: 'LROEPF140IngresosConFacturaConSGAnulacionRespuesta', answerSchema: 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionRespuesta_V1_0_0.xsd', list: 'Ingresos', item: 'Ingreso',
  },
};

// ---------------------------------------------------------------------------------------------
// Files: schemas, identifier, signature

let scratch: string | undefined;
/** A per-process folder for xmlsec1's input files and the Zuzendu schemas, removed at exit. */
function scratchDir(): string {
  if (!scratch) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticketbai-stand-in-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    // The Zuzendu schemas import the 1.2.2 ones by their published mixed-case names, which the vendor
    // copies do not carry; an XML catalog cannot map a relative import portably, so the four schemas
    // go side by side here under the imported names, the vendor folder untouched.
    const zuzendu = path.join(dir, 'zuzendu');
    fs.mkdirSync(zuzendu);
    for (const [from, to] of [
      ['xsd/zuzendu-1.2.2/zuzendualta_ticketbaiv1-2-2.xsd', 'zuzendualta_ticketbaiv1-2-2.xsd'],
      ['xsd/zuzendu-1.2.2/zuzenduanula_ticketbaiv1-2-2.xsd', 'zuzenduanula_ticketbaiv1-2-2.xsd'],
      ['xsd/ticketbai-1.2.2/ticketbaiv1-2-2.xsd', 'ticketBaiV1-2-2.xsd'],
      ['xsd/ticketbai-1.2.2/anula_ticketbaiv1-2-2.xsd', 'Anula_ticketBaiV1-2-2.xsd'],
    ] as const) fs.copyFileSync(path.join(VENDOR, from), path.join(zuzendu, to));
    scratch = dir;
  }
  return scratch;
}

function schemaOf(kind: TicketbaiKind): string {
  switch (kind) {
    case 'alta': return path.join(VENDOR, 'xsd/ticketbai-1.2.2/ticketbaiv1-2-2.xsd');
    case 'anulacion': return path.join(VENDOR, 'xsd/ticketbai-1.2.2/anula_ticketbaiv1-2-2.xsd');
    case 'zuzendu-alta': return path.join(scratchDir(), 'zuzendu/zuzendualta_ticketbaiv1-2-2.xsd');
    case 'zuzendu-baja': return path.join(scratchDir(), 'zuzendu/zuzenduanula_ticketbaiv1-2-2.xsd');
  }
}

/** xmllint's complaint about a document against a schema, or undefined; offline, xmldsig from the vendor copy. */
function xmllint(xml: string, schema: string): string | undefined {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', schema, '-'], {
    input: xml, encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: CATALOG },
  });
  if (run.error) throw run.error;
  return run.status === 0 ? undefined : run.stderr || `xmllint exited with ${run.status}`;
}

const parse = (xml: string): Element => new DOMParser({ onError: onErrorStopParsing }).parseFromString(xml, 'text/xml').documentElement!;

/**
 * Validates one TicketBAI file against the treasuries' schema for its kind; answers xmllint's
 * complaint, or undefined. The root is checked too: a schema accepts any global element of what it
 * imports (a bare ds:Signature, or an alta against the Zuzendu schemas), which no service takes.
 */
export function ticketbaiSchemaErrors(xml: string, kind: TicketbaiKind): string | undefined {
  const complaint = xmllint(xml, schemaOf(kind));
  if (complaint) return complaint;
  const root = parse(xml);
  const expected = ROOTS[kind];
  if (root.namespaceURI !== expected.namespace || root.localName !== expected.name) {
    return `root element {${root.namespaceURI ?? ''}}${root.localName} is not the ${kind} file's {${expected.namespace}}${expected.name}`;
  }
  return undefined;
}

/** CRC-8 as TicketBAI prints it (reference section 3): poly 0x07, init 0, no reflection, xorout 0, over UTF-8; 3 decimal digits. */
export function crc8(text: string): string {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return String(crc).padStart(3, '0');
}

const child = (parent: Element | undefined, name: string, namespace?: string): Element | undefined => {
  for (let node = parent?.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).localName === name && (namespace === undefined || (node as Element).namespaceURI === namespace)) return node as Element;
  }
  return undefined;
};
const at = (parent: Element | undefined, ...names: string[]): Element | undefined => names.reduce<Element | undefined>((node, name) => child(node, name), parent);
const textOf = (parent: Element | undefined, ...names: string[]): string | undefined => {
  const node = at(parent, ...names);
  return node ? (node.textContent ?? '').trim() : undefined;
};

/** The file's own ds:SignatureValue, base64 whitespace (line breaks some signers insert) removed: the identifier and the chaining quote the value, not its layout. */
function signatureValueOf(root: Element): string | undefined {
  const value = child(child(root, 'Signature', DS), 'SignatureValue', DS);
  return value ? (value.textContent ?? '').replace(/\s+/g, '') : undefined;
}

/** The TBAI identifier of a signed alta file, recomputed from the file alone (reference section 3). */
export function tbaiIdentifierOf(signedXml: string): string {
  const root = parse(signedXml);
  const nif = textOf(root, 'Sujetos', 'Emisor', 'NIF');
  const fecha = textOf(root, 'Factura', 'CabeceraFactura', 'FechaExpedicionFactura');
  const signature = signatureValueOf(root);
  const date = fecha && /^(\d{2})-(\d{2})-\d{2}(\d{2})$/.exec(fecha);
  if (!nif || !date || !signature) throw new Error('not a signed TicketBAI alta file: no Emisor NIF, FechaExpedicionFactura or ds:SignatureValue');
  const head = `TBAI-${nif}-${date[1]}${date[2]}${date[3]}-${signature.slice(0, 13)}-`;
  return `${head}${crc8(head)}`;
}

/** xmlsec1's verdict on a signed file, the test authority trusted and XAdES SignedProperties found by Id (as test/verifactu-signing.test.ts does). */
export function xmlsecVerifies(xml: string, caFile: string): { ok: boolean; output: string } {
  const file = path.join(scratchDir(), `signed-${process.pid}-${randomUUID()}.xml`);
  fs.writeFileSync(file, xml);
  try {
    const run = spawnSync('xmlsec1', ['--verify', '--enabled-key-data', 'x509', '--trusted-pem', caFile, '--id-attr:Id', `${XADES}:SignedProperties`, file], { encoding: 'utf8' });
    if (run.error) throw run.error;
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** What is wrong with the file's XAdES SignaturePolicyIdentifier for the territory, or undefined. */
function policyProblem(root: Element, territory: Territory): string | undefined {
  const policy = root.getElementsByTagNameNS(XADES, 'SignaturePolicyId')[0];
  if (!policy) return 'no XAdES SignaturePolicyIdentifier/SignaturePolicyId (XAdES-EPES is required)';
  const identifier = (child(child(policy, 'SigPolicyId', XADES), 'Identifier', XADES)?.textContent ?? '').trim();
  const hash = child(policy, 'SigPolicyHash', XADES);
  const algorithm = child(hash, 'DigestMethod', DS)?.getAttribute('Algorithm') ?? '';
  const digest = (child(hash, 'DigestValue', DS)?.textContent ?? '').trim();
  const expected = POLICIES[territory];
  if (identifier !== expected.identifier || algorithm !== SHA256 || digest !== expected.digest) {
    return `signature policy ${identifier} (${algorithm} ${digest}) is not ${territory}'s ${expected.identifier} (${SHA256} ${expected.digest})`;
  }
  return undefined;
}

interface Chain { serie?: string; numero: string; fecha: string; firma: string }
interface Facts { nif: string; serie?: string; numero: string; fecha: string; signatureValue?: string; chain?: Chain; accion?: string }

/** The invoice a file is about, its signature (Zuzendu: the first 100 chars of the original's it quotes), chaining and Zuzendu action. */
function factsOf(root: Element, kind: TicketbaiKind): Facts {
  const invoice = kind === 'alta' || kind === 'zuzendu-alta';
  const emisor = invoice ? at(root, 'Sujetos', 'Emisor') : at(root, 'IDFactura', 'Emisor');
  const cabecera = invoice ? at(root, 'Factura', 'CabeceraFactura') : at(root, 'IDFactura', 'CabeceraFactura');
  const link = at(root, 'HuellaTBAI', 'EncadenamientoFacturaAnterior');
  const signatureValue = kind === 'zuzendu-alta' ? textOf(root, 'SignatureValueFirmaFactura')
    : kind === 'zuzendu-baja' ? textOf(root, 'SignatureValueFirmaAnulacion') : signatureValueOf(root);
  // Optional elements absent stay absent keys, so a test may deepEqual an entry.
  const optional = <T extends string>(name: T, value: string | undefined) => (value === undefined ? {} : { [name]: value }) as Partial<Record<T, string>>;
  return {
    nif: textOf(emisor, 'NIF') ?? '',
    ...optional('serie', textOf(cabecera, 'SerieFactura')),
    numero: textOf(cabecera, 'NumFactura') ?? '',
    fecha: textOf(cabecera, 'FechaExpedicionFactura') ?? '',
    ...optional('signatureValue', signatureValue),
    ...(link ? {
      chain: {
        ...optional('serie', textOf(link, 'SerieFacturaAnterior')), numero: textOf(link, 'NumFacturaAnterior') ?? '',
        fecha: textOf(link, 'FechaExpedicionFacturaAnterior') ?? '', firma: textOf(link, 'SignatureValueFirmaFacturaAnterior') ?? '',
      },
    } : {}),
    ...(kind === 'zuzendu-alta' ? optional('accion', textOf(root, 'Cabecera', 'Accion')) : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// What the services answer

/** One finding on a file: its REST code (reference section 7.1) and its LROE record code (7.2), and whether each service refuses the file for it. */
interface Finding {
  rest?: { codigo: string; es: string; eu: string; rejects: boolean };
  bizkaia?: { codigo: string; es: string; eu: string; estado: 'Incorrecto' | 'AceptadoConErrores' };
}

// Texts of codes 005, 008 and 010 as in examples/tbai-responses; the others are the stand-in's wording.
const FINDINGS = {
  schema: {
    rest: { codigo: '002', es: 'Error: El fichero no cumple el esquema XSD', eu: 'Akatsa: Fitxategiak ez du XSD eskema betetzen', rejects: true },
    bizkaia: { codigo: 'B4_2000001', es: 'El fichero TicketBAI no es válido.', eu: 'TicketBAI fitxategia ez da baliozkoa.', estado: 'Incorrecto' },
  },
  issuer: { bizkaia: { codigo: 'B4_2000002', es: 'El emisor de la factura no es el obligado tributario.', eu: 'Fakturaren jaulkitzailea ez da zergaduna.', estado: 'Incorrecto' } },
  year: { bizkaia: { codigo: 'B4_2000017', es: 'La fecha de expedición no corresponde al ejercicio.', eu: 'Jaulkipen-data ez dagokio ekitaldiari.', estado: 'Incorrecto' } },
  signature: {
    rest: { codigo: '008', es: 'Aviso: Error en verificación de firma', eu: 'Abisua: Errorea sinadura egiaztatzean', rejects: false },
    bizkaia: { codigo: 'B4_2000070', es: 'La firma no cumple los requisitos de la política de firma TicketBAI.', eu: 'Sinadurak ez ditu TicketBAI sinadura-politikaren baldintzak betetzen.', estado: 'AceptadoConErrores' },
  },
  duplicate: {
    rest: { codigo: '005', es: 'Error: Factura ya registrada en sistema', eu: 'Akatsa: Faktura dagoeneko erregistratuta dago sisteman', rejects: true },
    bizkaia: { codigo: 'B4_2000003', es: 'Registro duplicado.', eu: 'Erregistro bikoiztua.', estado: 'Incorrecto' },
  },
  chain: {
    rest: { codigo: '010', es: 'Aviso: Posible error de encadenamiento', eu: 'Abisua: Posiblea da Kateamendu errorea gertatu izatea', rejects: false },
    bizkaia: { codigo: 'B4_2000060', es: 'El encadenamiento no corresponde a la factura inmediatamente anterior.', eu: 'Kateamendua ez dagokio aurreko fakturari.', estado: 'Incorrecto' },
  },
  notFound: {
    rest: { codigo: '018', es: 'Error: La factura no está registrada en sistema', eu: 'Akatsa: Faktura ez dago sisteman erregistratuta', rejects: true },
    bizkaia: { codigo: 'B4_2000004', es: 'El registro que se anula no existe en el sistema.', eu: 'Baliogabetzen den erregistroa ez dago sisteman.', estado: 'Incorrecto' },
  },
  cancelled: {
    rest: { codigo: '019', es: 'Error: La factura ya está anulada', eu: 'Akatsa: Faktura dagoeneko baliogabetuta dago', rejects: true },
    bizkaia: { codigo: 'B4_2000006', es: 'El registro ya está anulado.', eu: 'Erregistroa dagoeneko baliogabetuta dago.', estado: 'Incorrecto' },
  },
} satisfies Record<string, Finding>;

const DOWN = { codigo: '006', es: 'Error: Servicio no disponible temporalmente. Inténtelo más tarde', eu: 'Akatsa: Zerbitzua ez dago erabilgarri une honetan. Saiatu beranduago' };

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/** `dd-mm-yyyy hh:mm:ss`, Spanish peninsular time, as the services stamp their answers. */
function receptionTime(date = new Date()): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(date).map((part) => [part.type, part.value]));
  return `${parts.day}-${parts.month}-${parts.year} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** A `TicketBaiResponse` in the shape of examples/tbai-responses, checked against TicketBAIResponse.xsd. */
function restAnswer(results: Array<{ codigo: string; es: string; eu: string }>, rejected: boolean, identifier?: string): string {
  const xml = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ns2:TicketBaiResponse xmlns:ns2="urn:ticketbai:emision"><Salida>' +
    `${identifier && !rejected ? `<IdentificadorTBAI>${escape(identifier)}</IdentificadorTBAI>` : ''}<FechaRecepcion>${receptionTime()}</FechaRecepcion>` +
    `<Estado>${rejected ? '01' : '00'}</Estado>${rejected ? '<Descripcion>Rechazado</Descripcion><Azalpena>Baztertua</Azalpena>' : '<Descripcion>Recibido</Descripcion><Azalpena>Jasota</Azalpena>'}` +
    results.map((result) => `<ResultadosValidacion><Codigo>${escape(result.codigo)}</Codigo><Descripcion>${escape(clip(result.es, 250))}</Descripcion><Azalpena>${escape(clip(result.eu, 250))}</Azalpena></ResultadosValidacion>`).join('') +
    `${rejected ? '' : `<CSV>TBAI${randomUUID()}</CSV>`}</Salida></ns2:TicketBaiResponse>`;
  const own = xmllint(xml, RESPONSE_SCHEMA);
  assert.equal(own, undefined, `the stand-in's own answer fails TicketBAIResponse.xsd: ${own}`);
  return xml;
}

// ---------------------------------------------------------------------------------------------
// The stand-in

/** One TicketBAI file as the stand-in received it (for Bizkaia, one per file inside the LROE request). */
export interface TicketbaiReceived {
  path: string;
  operation: TicketbaiKind;
  nif: string;
  serie?: string;
  numero: string;
  fecha: string;
  /** Alta/anulación: the file's ds:SignatureValue (whitespace removed); Zuzendu: the SignatureValueFirma* it quotes. */
  signatureValue?: string;
  /** The EncadenamientoFacturaAnterior block, as sent. */
  chain?: { serie?: string; numero: string; fecha: string; firma: string };
  /** Zuzendu alta: SUBSANAR or MODIFICAR. */
  accion?: string;
  /** The subject CN of the client certificate it came with. */
  client: string;
  xml: string;
  /** Araba/Gipuzkoa: the Estado answered (`00` received, `01` rejected); Bizkaia: the record's EstadoRegistro. */
  outcome: string;
  /** The codes answered for the file (REST ResultadosValidacion, LROE CodigoErrorRegistro). */
  codes: string[];
  /** Bizkaia: the LROE request it came in. */
  lroe?: { mode: string; ejer: string; headers: IncomingHttpHeaders };
}

/** A request as it arrives, before the stand-in looks at it. */
export interface TicketbaiRequest {
  path: string;
  client: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type TicketbaiFailure = 'down' | 'http-503' | 'drop';

export interface TicketbaiStandIn {
  /** `https://127.0.0.1:port`: TICKETBAI_ENDPOINT_<TERRITORIO>. */
  url: string;
  territory: Territory;
  received: TicketbaiReceived[];
  /** Files (and Bizkaia requests) that broke a rule other than signature and chaining, each with what was wrong (xmllint's words for a schema); a test expects none. */
  invalid: string[];
  /** Alta/anulación files whose signature xmlsec1 refused or whose policy is not the territory's; a test expects none. */
  badSignatures: string[];
  /** Altas whose chaining does not name the last alta held for their issuer; a test expects none. */
  chainErrors: string[];
  /** What the next requests meet, one each, in order, none of them recorded in `received`: `down` (REST 01/006, LROE Incorrecto B4_1000004), `http-503` (empty), `drop` (socket destroyed). */
  failures: TicketbaiFailure[];
  /** The next files are rejected with these codes, one each, in order. */
  rejectNext: Array<{ codigo: string; descripcion: string }>;
  /** Called as a request arrives (after `failures`), before it is looked at or answered; a test may hold it there. */
  onRequest?: (request: TicketbaiRequest) => Promise<void> | void;
  close(): Promise<void>;
}

type Answer = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'drop';

export async function startTicketbaiStandIn(certificates: Certificates, territory: Territory): Promise<TicketbaiStandIn> {
  const bizkaia = territory === 'bizkaia';
  const standIn: TicketbaiStandIn = {
    url: '', territory, received: [], invalid: [], badSignatures: [], chainErrors: [], failures: [], rejectNext: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  /** The invoices it holds, by `nif|serie|numero|fecha`, with the first 100 chars of the signature of their alta and of their cancellation. */
  const held = new Map<string, { estado: 'registrada' | 'anulada'; firma: string; firmaAnulacion?: string }>();
  /** The files it refused, by `operation|key`, with the first 100 chars of their signature: what a Zuzendu may then correct. */
  const refused = new Map<string, string>();
  /** Per issuer NIF, the last alta it accepted: what the next one must chain to. */
  const last = new Map<string, Chain>();
  let submissions = 0;

  const keyOf = (facts: Facts) => `${facts.nif}|${facts.serie ?? ''}|${facts.numero}|${facts.fecha}`;
  const named = (link: Chain) => `${link.serie ? `${link.serie}/` : ''}${link.numero} of ${link.fecha} (${link.firma.slice(0, 13)}…)`;
  const rejects = (finding: Finding) => (bizkaia ? finding.bizkaia?.estado === 'Incorrecto' : finding.rest?.rejects === true);

  function chainProblem(chain: Chain | undefined, previous: Chain | undefined): string | undefined {
    if (!previous) return chain ? `chains to ${named(chain)}, but no earlier alta of this issuer is held: the first one carries no EncadenamientoFacturaAnterior` : undefined;
    if (!chain) return `no EncadenamientoFacturaAnterior, but the last alta held of this issuer is ${named(previous)}`;
    const same = (chain.serie ?? '') === (previous.serie ?? '') && chain.numero === previous.numero && chain.fecha === previous.fecha && chain.firma === previous.firma;
    return same ? undefined : `chains to ${named(chain)}, but the last alta held of this issuer is ${named(previous)}`;
  }

  /** Checks one file, updates what the stand-in holds, and records it; answers the findings and the TBAI identifier. */
  function checkFile(kind: TicketbaiKind, xml: string, where: { path: string; client: string; lroe?: TicketbaiReceived['lroe'] & { nif: string } }) {
    const findings: Finding[] = [];
    const entry: TicketbaiReceived = { path: where.path, operation: kind, nif: '', numero: '', fecha: '', client: where.client, xml, outcome: '', codes: [] };
    if (where.lroe) entry.lroe = { mode: where.lroe.mode, ejer: where.lroe.ejer, headers: where.lroe.headers };
    let root: Element | undefined;
    try {
      root = parse(xml);
      Object.assign(entry, factsOf(root, kind));
    } catch {
      // Not XML: the schema check below says so.
    }
    const label = `${where.path} ${kind} ${entry.nif} ${entry.serie ? `${entry.serie}/` : ''}${entry.numero} ${entry.fecha}`;
    const complaint = ticketbaiSchemaErrors(xml, kind);
    let identifier: string | undefined;
    if (complaint || !root) {
      standIn.invalid.push(`${label}: ${complaint}`);
      findings.push(FINDINGS.schema);
    } else {
      if (where.lroe && entry.nif !== where.lroe.nif) {
        standIn.invalid.push(`${label}: issuer ${entry.nif} is not the LROE taxpayer ${where.lroe.nif}`);
        findings.push(FINDINGS.issuer);
      }
      if (where.lroe && entry.fecha.slice(6) !== where.lroe.ejer) {
        standIn.invalid.push(`${label}: issued outside the LROE Ejercicio ${where.lroe.ejer}`);
        findings.push(FINDINGS.year);
      }
      if (kind === 'alta' || kind === 'anulacion') {
        const verdict = xmlsecVerifies(xml, certificates.caFile);
        const problems = [...(verdict.ok ? [] : [`xmlsec1: ${verdict.output.trim()}`]), ...[policyProblem(root, territory)].filter((problem) => problem !== undefined)];
        if (problems.length) {
          standIn.badSignatures.push(`${label}: ${problems.join('\n')}`);
          findings.push(FINDINGS.signature);
        }
      }
      if (kind === 'alta') identifier = tbaiIdentifierOf(xml);
      else if (kind === 'zuzendu-alta' && entry.signatureValue) {
        const head = `TBAI-${entry.nif}-${entry.fecha.slice(0, 2)}${entry.fecha.slice(3, 5)}${entry.fecha.slice(8, 10)}-${entry.signatureValue.slice(0, 13)}-`;
        identifier = `${head}${crc8(head)}`;
      }
    }
    const forced = standIn.rejectNext.shift();
    if (forced) {
      const text = { codigo: forced.codigo, es: forced.descripcion, eu: forced.descripcion };
      findings.push({ rest: { ...text, rejects: true }, bizkaia: { ...text, estado: 'Incorrecto' } });
    }
    if (!findings.some(rejects)) {
      const key = keyOf(entry);
      const state = held.get(key);
      const firma = (entry.signatureValue ?? '').slice(0, 100);
      const link: Chain = { ...(entry.serie !== undefined ? { serie: entry.serie } : {}), numero: entry.numero, fecha: entry.fecha, firma };
      if (kind === 'alta') {
        // Held but cancelled: the invoice may be registered again (its cancellation was the mistake).
        if (state?.estado === 'registrada') findings.push(FINDINGS.duplicate);
        else {
          const problem = chainProblem(entry.chain, last.get(entry.nif));
          if (problem) {
            standIn.chainErrors.push(`${label}: ${problem}`);
            findings.push(FINDINGS.chain);
          }
          if (!findings.some(rejects)) {
            held.set(key, { estado: 'registrada', firma });
            last.set(entry.nif, link);
          }
        }
      } else if (kind === 'anulacion') {
        if (!state) findings.push(FINDINGS.notFound);
        else if (state.estado === 'anulada') findings.push(FINDINGS.cancelled);
        else Object.assign(state, { estado: 'anulada', firmaAnulacion: firma });
      } else {
        // A correction needs the original: held (MODIFICAR) or refused earlier (SUBSANAR), and quotes
        // its signature. Our sender never corrects what never reached the service, so an unknown one
        // is refused (018, the stand-in's choice); a wrong quotation is accepted but reported.
        const alta = kind === 'zuzendu-alta';
        const earlier = refused.get(`${alta ? 'alta' : 'anulacion'}|${key}`);
        const original = alta ? (state?.estado === 'registrada' ? state.firma : earlier) : (state?.estado === 'anulada' ? state.firmaAnulacion : earlier);
        if (original === undefined) findings.push(FINDINGS.notFound);
        else {
          if (original !== firma) standIn.invalid.push(`${label}: quotes the signature ${firma.slice(0, 13)}…, the original's is ${original.slice(0, 13)}…`);
          if (alta && state?.estado !== 'registrada') {
            held.set(key, { estado: 'registrada', firma: original });
            if (!chainProblem(entry.chain, last.get(entry.nif))) last.set(entry.nif, { ...link, firma: original });
          } else if (!alta && state?.estado !== 'anulada') held.set(key, { estado: 'anulada', firma: state?.firma ?? '', firmaAnulacion: original });
        }
      }
    }
    if (findings.some(rejects) && entry.numero) refused.set(`${kind}|${keyOf(entry)}`, (entry.signatureValue ?? '').slice(0, 100));
    standIn.received.push(entry);
    return { entry, findings, identifier };
  }

  async function rest(kind: TicketbaiKind, request: IncomingMessage, body: Buffer, client: string): Promise<Answer> {
    const type = (request.headers['content-type'] ?? '').replace(/\s+/g, '').toLowerCase();
    if (type !== 'application/xml;charset=utf-8') {
      standIn.invalid.push(`${request.url}: Content-Type ${request.headers['content-type']}, not application/xml;charset=UTF-8`);
      return { status: 415 };
    }
    const { entry, findings, identifier } = checkFile(kind, body.toString('utf8'), { path: request.url!, client });
    const found = findings.flatMap((finding) => (finding.rest ? [finding.rest] : []));
    const rejected = found.some((result) => result.rejects);
    // A refusal names what refused the file (as response_with_error_code_005.xml), not the warnings too.
    const results = rejected ? found.filter((result) => result.rejects) : found;
    entry.outcome = rejected ? '01' : '00';
    entry.codes = results.map((result) => result.codigo);
    return { status: 200, headers: { 'content-type': 'application/xml;charset=UTF-8' }, body: restAnswer(results, rejected, identifier) };
  }

  /** A whole LROE request refused (reference section 7.2): headers only. */
  const lroeRefused = (codigo: string, mensaje: string): Answer => ({
    status: 200,
    headers: { 'eus-bizkaia-n3-tipo-respuesta': 'Incorrecto', 'eus-bizkaia-n3-codigo-respuesta': codigo, 'eus-bizkaia-n3-mensaje-respuesta': mensaje.replace(/[^\x20-\x7e\xa0-\xff]+/g, ' ').slice(0, 500) },
  });

  async function lroe(request: IncomingMessage, body: Buffer, client: string): Promise<Answer> {
    const refuse = (codigo: string, problem: string) => {
      standIn.invalid.push(`${LROE_PATH}: ${problem}`);
      return lroeRefused(codigo, problem);
    };
    const headers = request.headers;
    const problems: string[] = [];
    const expect = (name: string, value: string) => {
      if ((headers[name] ?? '').toString().replace(/\s+/g, '').toLowerCase() !== value.toLowerCase()) problems.push(`header ${name}: ${headers[name]}, not ${value}`);
    };
    expect('content-type', 'application/octet-stream');
    expect('content-encoding', 'gzip');
    expect('eus-bizkaia-n3-version', '1.0');
    expect('eus-bizkaia-n3-content-type', 'application/xml');
    let data: { con?: unknown; apa?: unknown; inte?: { nif?: unknown; nrs?: unknown }; drs?: { mode?: unknown; ejer?: unknown } } = {};
    try {
      data = JSON.parse(String(headers['eus-bizkaia-n3-data'] ?? ''));
    } catch {
      problems.push(`header eus-bizkaia-n3-data is not JSON: ${headers['eus-bizkaia-n3-data']}`);
    }
    const mode = String(data.drs?.mode ?? '');
    const ejer = String(data.drs?.ejer ?? '');
    const nif = String(data.inte?.nif ?? '');
    if (data.con !== 'LROE') problems.push(`eus-bizkaia-n3-data con ${data.con}, not LROE`);
    if (data.apa !== '1.1') problems.push(`eus-bizkaia-n3-data apa ${data.apa}, not 1.1`);
    if (!/^[0-9A-Z]{9}$/.test(nif) || !data.inte?.nrs) problems.push(`eus-bizkaia-n3-data inte ${JSON.stringify(data.inte)}: nif (9) and nrs needed`);
    if (mode !== '240' && mode !== '140') problems.push(`eus-bizkaia-n3-data drs.mode ${mode}, not 240 or 140`);
    if (!/^\d{4}$/.test(ejer)) problems.push(`eus-bizkaia-n3-data drs.ejer ${ejer}, not a year`);
    // The stand-in answers any request-shape error B4_1000001; the service has finer N3_/B4_1000xxx codes.
    if (problems.length) return refuse('B4_1000001', problems.join('; '));
    let xml: string;
    try {
      xml = gunzipSync(body).toString('utf8');
    } catch (error) {
      return refuse('B4_1000003', `Error al descomprimir el fichero: ${(error as Error).message}`);
    }
    let root: Element;
    try {
      root = parse(xml);
    } catch (error) {
      return refuse('B4_1000001', `not XML: ${(error as Error).message}`);
    }
    const spec = root.namespaceURI?.startsWith(LROE_NS) ? LROE_REQUESTS[root.localName ?? ''] : undefined;
    if (!spec) return refuse('B4_1000001', `root {${root.namespaceURI}}${root.localName} is none of the LROE 1.1 alta/anulación requests`);
    const complaint = xmllint(xml, path.join(LROE_SCHEMAS, spec.schema));
    if (complaint) return refuse('B4_1000001', `${spec.schema}: ${complaint}`);
    const cabecera = child(root, 'Cabecera')!;
    if (textOf(cabecera, 'Modelo') !== mode) problems.push(`Modelo ${textOf(cabecera, 'Modelo')} is not drs.mode ${mode}`);
    if (spec.mode !== mode) problems.push(`${root.localName} is not a model ${mode} request`);
    if (textOf(cabecera, 'Operacion') !== spec.operacion) problems.push(`Operacion ${textOf(cabecera, 'Operacion')} in ${root.localName}, not ${spec.operacion}`);
    const subcapitulo = textOf(cabecera, 'Subcapitulo');
    if (textOf(cabecera, 'Capitulo') !== '1' || (subcapitulo !== undefined && subcapitulo !== data.apa)) problems.push(`Capitulo/Subcapitulo ${textOf(cabecera, 'Capitulo')}/${subcapitulo}, not 1/${data.apa}`);
    if (textOf(cabecera, 'Ejercicio') !== ejer) problems.push(`Ejercicio ${textOf(cabecera, 'Ejercicio')} is not drs.ejer ${ejer}`);
    if (problems.length) return refuse('B4_1000001', problems.join('; '));
    const taxpayer = textOf(cabecera, 'ObligadoTributario', 'NIF')!;
    if (taxpayer !== nif) return refuse('B4_1000022', `ObligadoTributario NIF ${taxpayer} is not inte.nif ${nif}`);

    const fileElement = spec.kind === 'alta' ? 'TicketBai' : 'AnulacionTicketBai';
    const registros: string[] = [];
    const estados: string[] = [];
    for (let node = child(root, spec.list)?.firstChild; node; node = node.nextSibling) {
      if (node.nodeType !== 1 || (node as Element).localName !== spec.item) continue;
      const encoded = (textOf(node as Element, fileElement) ?? '').replace(/\s+/g, '');
      const file = Buffer.from(encoded, 'base64').toString('utf8');
      const { entry, findings } = checkFile(spec.kind, file, { path: LROE_PATH, client, lroe: { mode, ejer, headers, nif } });
      const found = findings.flatMap((finding) => (finding.bizkaia ? [finding.bizkaia] : []));
      const shown = found.find((finding) => finding.estado === 'Incorrecto') ?? found[0];
      entry.outcome = shown?.estado ?? 'Correcto';
      entry.codes = shown ? [shown.codigo] : [];
      estados.push(entry.outcome);
      // A file the schema refused has no trustworthy IDFactura: the answer names it by the file itself.
      const identificador = findings.includes(FINDINGS.schema)
        ? `<${fileElement}>${encoded}</${fileElement}>`
        : `<IDFactura>${entry.serie !== undefined ? `<SerieFactura>${escape(entry.serie)}</SerieFactura>` : ''}<NumFactura>${escape(entry.numero)}</NumFactura><FechaExpedicionFactura>${entry.fecha}</FechaExpedicionFactura></IDFactura>`;
      registros.push(`<Registro><Identificador>${identificador}</Identificador><SituacionRegistro><EstadoRegistro>${entry.outcome}</EstadoRegistro>` +
        (shown ? `<CodigoErrorRegistro>${shown.codigo}</CodigoErrorRegistro><DescripcionErrorRegistroES>${escape(clip(shown.es, 250))}</DescripcionErrorRegistroES><DescripcionErrorRegistroEU>${escape(clip(shown.eu, 250))}</DescripcionErrorRegistroEU>` : '') +
        '</SituacionRegistro></Registro>');
    }
    const allWrong = estados.every((estado) => estado === 'Incorrecto');
    const tipo = allWrong ? 'Incorrecto' : estados.every((estado) => estado === 'Correcto') ? 'Correcto' : 'Parcialmente correcto';
    const namespace = `${LROE_NS}${spec.answerSchema}`;
    const echoed = `<Cabecera><Modelo>${mode}</Modelo><Capitulo>1</Capitulo>${subcapitulo !== undefined ? `<Subcapitulo>${escape(subcapitulo)}</Subcapitulo>` : ''}<Operacion>${spec.operacion}</Operacion>` +
      `<Version>${escape(textOf(cabecera, 'Version')!)}</Version><Ejercicio>${ejer}</Ejercicio><ObligadoTributario><NIF>${escape(taxpayer)}</NIF>` +
      `<ApellidosNombreRazonSocial>${escape(textOf(cabecera, 'ObligadoTributario', 'ApellidosNombreRazonSocial')!)}</ApellidosNombreRazonSocial></ObligadoTributario></Cabecera>`;
    const answer = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ns2:${spec.answer} xmlns:ns2="${namespace}">${echoed}` +
      `${allWrong ? '' : `<DatosPresentacion><FechaPresentacion>${receptionTime()}</FechaPresentacion><NIFPresentador>${escape(taxpayer)}</NIFPresentador></DatosPresentacion>`}` +
      `<Registros>${registros.join('')}</Registros></ns2:${spec.answer}>`;
    const own = xmllint(answer, path.join(LROE_SCHEMAS, spec.answerSchema));
    assert.equal(own, undefined, `the stand-in's own answer fails ${spec.answerSchema}: ${own}`);
    submissions += 1;
    return {
      status: 200,
      headers: {
        'content-type': 'application/xml;charset=UTF-8', 'content-encoding': 'gzip', 'eus-bizkaia-n3-tipo-respuesta': tipo,
        // As a recorded test-service answer shows: every record refused is a whole-request Incorrecto B4_1000002, with the records in the body.
        ...(allWrong
          ? { 'eus-bizkaia-n3-codigo-respuesta': 'B4_1000002', 'eus-bizkaia-n3-mensaje-respuesta': 'Todos los registros incluidos en la petición son incorrectos.' }
          : { 'eus-bizkaia-n3-identificativo': String(6400000 + submissions), 'eus-bizkaia-n3-numero-registro': `${ejer}${String(submissions).padStart(8, '0')}` }),
      },
      body: gzipSync(answer),
    };
  }

  async function answer(request: IncomingMessage, body: Buffer): Promise<Answer> {
    const url = request.url ?? '';
    const kind = bizkaia ? undefined : REST_PATHS[territory as 'araba' | 'gipuzkoa'][url];
    if (request.method !== 'POST' || (bizkaia ? url !== LROE_PATH : !kind)) {
      standIn.invalid.push(`${request.method} ${url}: not a ${territory} TicketBAI service`);
      return { status: 404 };
    }
    const failure = standIn.failures.shift();
    if (failure === 'drop') return 'drop';
    if (failure === 'http-503') return { status: 503 };
    if (failure === 'down') {
      return bizkaia ? lroeRefused('B4_1000004', 'Error técnico.')
        : { status: 200, headers: { 'content-type': 'application/xml;charset=UTF-8' }, body: restAnswer([DOWN], true) };
    }
    const subject = (request.socket as TLSSocket).getPeerCertificate()?.subject?.CN as string | string[] | undefined;
    const client = Array.isArray(subject) ? subject.join(', ') : subject ?? '';
    await standIn.onRequest?.({ path: url, client, headers: request.headers, body });
    return kind ? rest(kind, request, body, client) : lroe(request, body, client);
  }

  const server: Server = createServer({
    key: fs.readFileSync(path.join(certificates.dir, 'server.key')),
    cert: fs.readFileSync(path.join(certificates.dir, 'server.pem')),
    ca: fs.readFileSync(certificates.caFile),
    requestCert: true,
    rejectUnauthorized: true,
  }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      answer(request, Buffer.concat(chunks)).then((reply) => {
        if (reply === 'drop') {
          request.socket.destroy();
          return;
        }
        response.writeHead(reply.status, reply.headers).end(reply.body);
      }, (error: Error) => {
        // A fault of the stand-in itself (its own answer off schema): the test must see it.
        standIn.invalid.push(`stand-in error on ${request.url}: ${error.stack ?? error.message}`);
        response.writeHead(500).end(error.message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}
