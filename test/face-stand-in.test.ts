import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { get, request } from 'node:https';
import path from 'node:path';
import { after, it } from 'node:test';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { makeCertificates } from './helpers/aeat-stand-in.ts';
import { signSoapForTest, startFaceStandIn, type FaceStandIn } from './helpers/face-stand-in.ts';

/**
 * The FACe stand-in itself (test/helpers/face-stand-in.ts), against the WSDL, FACe's official test
 * invoice and invoices signed here (shared/reference/facturae-face.md sections 1 to 3 and 6): its
 * WS-Security check (100 for anything not signed by a certificate of the test authority over the
 * Body and a live Timestamp), its invoice checks and result codes, and the states it answers.
 */
const VENDOR = path.join(import.meta.dirname, 'vendor/facturae');
const WSDL = fs.readFileSync(path.join(VENDOR, 'wsdl/facturasspp2.staging.wsdl'), 'utf8');
const OFFICIAL = fs.readFileSync(path.join(VENDOR, 'vectors/factura-prueba-v1-2-0.xsig'));
const GOBL = fs.readFileSync(path.join(VENDOR, 'vectors/invoice-face.gobl.xml'), 'utf8');
const FACE = 'https://webservice.face.gob.es';
const POLICY_ID = 'http://www.facturae.es/politica_de_firma_formato_facturae/politica_de_firma_formato_facturae_v3_1.pdf';
const POLICY_DIGEST = 'Ohixl6upD6av8N7pEvDABhEL6hM=';

const certificates = makeCertificates();
const pem = (name: string) => fs.readFileSync(path.join(certificates.dir, name), 'utf8');
const CLIENT = { key: pem('client.key'), cert: pem('client.pem') };
const STRANGER = { key: pem('stranger.key'), cert: pem('stranger.pem') };
const standIns: FaceStandIn[] = [];
after(async () => {
  await Promise.all(standIns.map((standIn) => standIn.close()));
  fs.rmSync(certificates.dir, { recursive: true, force: true });
});
async function start() {
  const standIn = await startFaceStandIn(certificates);
  standIns.push(standIn);
  return standIn;
}

const envelope = (operation: string, parts: string) => '<?xml version="1.0" encoding="UTF-8"?>\n' +
  `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:web="${FACE}"><soapenv:Header/>` +
  `<soapenv:Body><web:${operation}>${parts}</web:${operation}></soapenv:Body></soapenv:Envelope>`;

interface Reply { status: number; text: string }
function post(url: string, body: string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', ca: fs.readFileSync(certificates.caFile), headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}
const headersFor = (operation: string) => ({ 'content-type': 'text/xml;charset=UTF-8', soapaction: `"${FACE}#${operation}"` });

const childOf = (parent: Element | undefined, name: string): Element | undefined => {
  for (let node = parent?.firstChild; node; node = node.nextSibling) if (node.nodeType === 1 && (node as Element).localName === name) return node as Element;
  return undefined;
};
const textAt = (parent: Element | undefined, ...names: string[]) => {
  const node = names.reduce<Element | undefined>((at, name) => childOf(at, name), parent);
  return node ? node.textContent ?? '' : undefined;
};

/** Sends one operation's parts, WS-Security signed (by `signer`, or not at all with null); answers the `return` element and its resultado/codigo. */
async function call(standIn: FaceStandIn, operation: string, parts: string, signer: typeof CLIENT | null = CLIENT, change = (xml: string) => xml) {
  const unsigned = envelope(operation, parts);
  const body = change(signer ? signSoapForTest(unsigned, signer.key, signer.cert) : unsigned);
  const reply = await post(standIn.url, body, headersFor(operation));
  assert.equal(reply.status, 200, reply.text);
  const root = new DOMParser().parseFromString(reply.text, 'text/xml').documentElement!;
  const response = childOf(childOf(root, 'Body'), `${operation}Response`);
  assert.equal(response?.namespaceURI, FACE, reply.text);
  const answer = childOf(response, 'return')!;
  return { answer, codigo: textAt(answer, 'resultado', 'codigo'), text: reply.text };
}

const enviar = (xsig: string | Buffer, options: { nombre?: string; mime?: string; anexos?: Array<{ nombre: string; mime: string; bytes?: Buffer }> } = {}) =>
  '<request><correo>facturacion@example.es</correo>' +
  `<factura><factura>${Buffer.from(xsig).toString('base64')}</factura><nombre>${options.nombre ?? 'factura.xsig'}</nombre><mime>${options.mime ?? 'application/xml'}</mime></factura>` +
  `<anexos>${(options.anexos ?? []).map((anexo) => `<anexo><anexo>${(anexo.bytes ?? Buffer.from('%PDF-1.4\n%%EOF\n')).toString('base64')}</anexo><nombre>${anexo.nombre}</nombre><mime>${anexo.mime}</mime></anexo>`).join('')}</anexos></request>`;

/**
 * A Facturae 3.2.2 invoice (invopop's FACe sample, its signature removed and whitespace between
 * elements dropped), with the number and DIR3 centres asked for, signed XAdES-EPES by the test
 * client certificate with xmlsec1 from a template (reference section 1: enveloped, three references,
 * policy Facturae v3.1 unless another is given, SigningCertificate with the certificate's 48-digit serial).
 */
function facturae(numero: string, options: { centres?: Array<[code: string, role: string]>; policyDigest?: string; signer?: 'client' | 'stranger' } = {}): string {
  let xml = `${GOBL.slice(0, GOBL.indexOf('<ds:Signature'))}</fe:Facturae>`.replace(/>\s+</g, '><').replace('<InvoiceNumber>TEST01002F</InvoiceNumber>', `<InvoiceNumber>${numero}</InvoiceNumber>`);
  const centres = options.centres ?? [['P00000010', '01'], ['P00000010', '02'], ['P00000010', '03']];
  const address = '<AddressInSpain><Address>Plaza de la Villa, 4</Address><PostCode>28005</PostCode><Town>Madrid</Town><Province>Madrid</Province><CountryCode>ESP</CountryCode></AddressInSpain>';
  xml = xml.replace(/<AdministrativeCentres>.*<\/AdministrativeCentres>/, `<AdministrativeCentres>${centres.map(([code, role]) =>
    `<AdministrativeCentre><CentreCode>${code}</CentreCode><RoleTypeCode>${role}</RoleTypeCode>${address}</AdministrativeCentre>`).join('')}</AdministrativeCentres>`);
  const signer = options.signer ?? 'client';
  const certificate = new X509Certificate(signer === 'client' ? CLIENT.cert : STRANGER.cert);
  const sha512 = '<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha512"/><ds:DigestValue/>';
  const template = '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="Sig"><ds:SignedInfo>' +
    '<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>' +
    `<ds:Reference Id="Sig-Document" Type="http://www.w3.org/2000/09/xmldsig#Object" URI=""><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/></ds:Transforms>${sha512}</ds:Reference>` +
    `<ds:Reference Type="http://uri.etsi.org/01903#SignedProperties" URI="#Sig-SignedProperties">${sha512}</ds:Reference><ds:Reference URI="#Sig-KeyInfo">${sha512}</ds:Reference>` +
    '</ds:SignedInfo><ds:SignatureValue/><ds:KeyInfo Id="Sig-KeyInfo"><ds:X509Data/></ds:KeyInfo><ds:Object>' +
    '<xades:QualifyingProperties xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" Target="#Sig"><xades:SignedProperties Id="Sig-SignedProperties"><xades:SignedSignatureProperties>' +
    `<xades:SigningTime>${new Date().toISOString()}</xades:SigningTime><xades:SigningCertificate><xades:Cert><xades:CertDigest>` +
    `<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha512"/><ds:DigestValue>${Buffer.from(certificate.fingerprint512.replace(/:/g, ''), 'hex').toString('base64')}</ds:DigestValue></xades:CertDigest>` +
    `<xades:IssuerSerial><ds:X509IssuerName>${certificate.issuer}</ds:X509IssuerName><ds:X509SerialNumber>${BigInt(`0x${certificate.serialNumber}`)}</ds:X509SerialNumber></xades:IssuerSerial></xades:Cert></xades:SigningCertificate>` +
    `<xades:SignaturePolicyIdentifier><xades:SignaturePolicyId><xades:SigPolicyId><xades:Identifier>${POLICY_ID}</xades:Identifier><xades:Description>Política de Firma FacturaE v3.1</xades:Description></xades:SigPolicyId>` +
    `<xades:SigPolicyHash><ds:DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/><ds:DigestValue>${options.policyDigest ?? POLICY_DIGEST}</ds:DigestValue></xades:SigPolicyHash>` +
    '</xades:SignaturePolicyId></xades:SignaturePolicyIdentifier><xades:SignerRole><xades:ClaimedRoles><xades:ClaimedRole>emisor</xades:ClaimedRole></xades:ClaimedRoles></xades:SignerRole>' +
    '</xades:SignedSignatureProperties><xades:SignedDataObjectProperties><xades:DataObjectFormat ObjectReference="#Sig-Document"><xades:Description>Factura electrónica</xades:Description>' +
    '<xades:ObjectIdentifier><xades:Identifier Qualifier="OIDAsURN">urn:oid:1.2.840.10003.5.109.10</xades:Identifier></xades:ObjectIdentifier><xades:MimeType>text/xml</xades:MimeType>' +
    '</xades:DataObjectFormat></xades:SignedDataObjectProperties></xades:SignedProperties></xades:QualifyingProperties></ds:Object></ds:Signature>';
  const file = path.join(certificates.dir, `facturae-${numero}.xml`);
  fs.writeFileSync(file, xml.replace('</fe:Facturae>', `${template}</fe:Facturae>`));
  const run = spawnSync('xmlsec1', ['--sign', '--privkey-pem', `${path.join(certificates.dir, `${signer}.key`)},${path.join(certificates.dir, `${signer}.pem`)}`,
    '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties', '--id-attr:Id', 'http://www.w3.org/2000/09/xmldsig#:KeyInfo', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

it('is built from the WSDL: the schema copied out of it is its <types>, and it serves the WSDL at its own address', async () => {
  const copy = fs.readFileSync(path.join(VENDOR, 'checks/facturasspp2-types.xsd'), 'utf8');
  const inner = (xml: string) => xml.slice(xml.indexOf('>', xml.indexOf('<xsd:schema')) + 1, xml.indexOf('</xsd:schema>'));
  assert.equal(inner(copy), inner(WSDL));
  const standIn = await start();
  const wsdl = await new Promise<string>((resolve, reject) => {
    get(`${standIn.url}?wsdl`, { ca: fs.readFileSync(certificates.caFile) }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => resolve(text));
    }).on('error', reject);
  });
  assert.ok(wsdl.includes(`<soap:address location="${standIn.url}"/>`));
  assert.match(standIn.url, /^https:\/\/127\.0\.0\.1:\d+\/facturasspp2$/);
});

it('registers a Facturae 3.2.2 invoice signed by the test authority, holds it at 1200/4100, and refuses it again as a duplicate', async () => {
  const standIn = await start();
  const xsig = facturae('T-1');
  const { answer, codigo, text } = await call(standIn, 'enviarFactura', enviar(xsig, { anexos: [{ nombre: 'albaran.pdf', mime: 'application/pdf' }] }));
  assert.equal(codigo, '0', text);
  assert.deepEqual(standIn.invalid, []);
  assert.deepEqual(standIn.refused, []);
  assert.equal(textAt(answer, 'resultado', 'descripcion'), 'Correcto');
  assert.match(textAt(answer, 'resultado', 'codigoSeguimiento') ?? '', /^\w+$/);
  const factura = childOf(answer, 'factura')!;
  const numeroRegistro = textAt(factura, 'numeroRegistro')!;
  assert.match(numeroRegistro, /^REGAGE\d{2}e\d{10}$/);
  assert.deepEqual(['organoGestor', 'unidadTramitadora', 'oficinaContable', 'identificadorEmisor', 'numeroFactura'].map((name) => textAt(factura, name)),
    ['P00000010', 'P00000010', 'P00000010', 'B23103039', 'T-1']);
  assert.equal(childOf(factura, 'serieFactura')?.getAttribute('xsi:nil'), 'true');
  assert.match(textAt(factura, 'fechaRecepcion')!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  const received = standIn.received[0]!;
  assert.equal(received.operation, 'enviarFactura');
  assert.equal(received.signedBy, 'EJEMPLO SOLUCIONES SL');
  assert.equal(received.invoice, xsig);
  assert.deepEqual(received.attachments, [{ nombre: 'albaran.pdf', mime: 'application/pdf', bytes: 15 }]);
  assert.equal(received.resultado, '0');
  const held = standIn.invoices.get(numeroRegistro)!;
  assert.deepEqual([held.tramitacion.codigo, held.anulacion.codigo, held.fechaExpedicion, held.xsig === xsig], ['1200', '4100', '2021-12-08', true]);

  assert.equal((await call(standIn, 'enviarFactura', enviar(facturae('T-1')))).codigo, '415');
  // A rejected invoice may be sent again.
  standIn.setState(numeroRegistro, '2600', 'Falta el número de expediente');
  assert.equal((await call(standIn, 'enviarFactura', enviar(facturae('T-1')))).codigo, '0');
  assert.deepEqual(standIn.invalid, []);
});

it('processes FACe\'s official test invoice: 408 (Facturae 3.2.1, not 3.2.2) and 428 (another authority, certificate expired)', async () => {
  const standIn = await start();
  const { codigo } = await call(standIn, 'enviarFactura', enviar(OFFICIAL, { nombre: 'factura-prueba-v1-2-0.xsig' }));
  // The schema finding is answered (FACe takes 3.2.1, the stand-in knows 3.2.2 only); the signature
  // is refused too. The stand-in verifies with the test authority trusted, not --insecure: its point is
  // to refuse invoice signatures that do not chain to the certificate our service was given, and this
  // one's Camerfirma chain is foreign and expired (2018). Its bytes are intact, as --insecure shows.
  assert.equal(codigo, '408');
  assert.deepEqual(standIn.refused, []);
  assert.equal(standIn.received[0]!.invoice, OFFICIAL.toString('utf8'));
  assert.equal(standIn.invalid.length, 2, standIn.invalid.join('\n'));
  assert.match(standIn.invalid[0]!, /^enviarFactura factura-prueba-v1-2-0\.xsig: 408 .*\{http:\/\/www\.facturae\.es\/Facturae\/2014\/v3\.2\.1\/Facturae\}Facturae': No matching global declaration/s);
  assert.match(standIn.invalid[1]!, /^enviarFactura factura-prueba-v1-2-0\.xsig: 428 xmlsec1 does not verify .*certificate verification failed/s);
  const insecure = spawnSync('xmlsec1', ['--verify', '--insecure', '--enabled-key-data', 'x509', '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
    '--id-attr:Id', 'http://www.w3.org/2000/09/xmldsig#:KeyInfo', path.join(VENDOR, 'vectors/factura-prueba-v1-2-0.xsig')], { encoding: 'utf8' });
  assert.equal(insecure.status, 0, insecure.stderr);
  assert.match(insecure.stderr, /SignedInfo References \(ok\/all\): 3\/3/);
});

it('answers FACe\'s refusals of an invoice: policy, centres, relation, attachments, signature, file name and type', async () => {
  const standIn = await start();
  const codigo = async (parts: string) => (await call(standIn, 'enviarFactura', parts)).codigo;
  assert.equal(await codigo(enviar(facturae('R-1', { policyDigest: 'xmfh8D/Ec/hHeE1IB4zPd61zHIY=' }))), '440');
  assert.match(standIn.invalid.splice(0)[0]!, /440 signature policy .* is not Facturae v3\.1/);
  assert.equal(await codigo(enviar(facturae('R-2', { centres: [['P00000010', '01'], ['P00000010', '02']] }))), '416');
  assert.equal(await codigo(enviar(facturae('R-3', { centres: [['P00000010', '01'], ['P00000010', '02'], ['P00000010', '04']] }))), '418');
  assert.equal(await codigo(enviar(facturae('R-4', { centres: [['L01280796', '01'], ['LA0007407', '02'], ['LA0007408', '03']] }))), '412');
  standIn.relations.push({ oc: 'L01280796', og: 'LA0007407', ut: 'LA0007408' });
  assert.equal(await codigo(enviar(facturae('R-4', { centres: [['L01280796', '01'], ['LA0007407', '02'], ['LA0007408', '03']] }))), '0');
  const pdf = { nombre: 'anexo.pdf', mime: 'application/pdf' };
  assert.equal(await codigo(enviar(facturae('R-5'), { anexos: Array(6).fill(pdf) })), '433');
  assert.equal(await codigo(enviar(facturae('R-6'), { anexos: [pdf, { nombre: 'anexo.txt', mime: 'text/plain' }] })), '312');
  assert.equal(await codigo(enviar(facturae('R-7'), { mime: 'text/xml' })), '311');
  assert.equal(await codigo(enviar(facturae('R-8'), { nombre: 'factura.xml' })), '408');
  assert.deepEqual(standIn.invalid, []);
  assert.equal(await codigo(enviar(facturae('R-9').replace('<InvoiceNumber>R-9<', '<InvoiceNumber>R-10<'))), '428');
  assert.match(standIn.invalid.splice(0)[0]!, /428 xmlsec1 does not verify .*data and digest do not match/s);
  // Intact, but by a certificate of another authority.
  assert.equal(await codigo(enviar(facturae('R-11', { signer: 'stranger' }))), '428');
  assert.match(standIn.invalid.splice(0)[0]!, /428 xmlsec1 does not verify .*certificate verification failed.*CN=STRANGER/s);
  assert.deepEqual(standIn.refused, []);
});

it('answers 100 to an unsigned, a tampered, an expired and a stranger-signed request, and records why', async () => {
  const standIn = await start();
  const numeroRegistro = standIn.register();
  const parts = `<numeroRegistro>${numeroRegistro}</numeroRegistro>`;
  assert.equal((await call(standIn, 'consultarFactura', parts)).codigo, '0');
  assert.equal((await call(standIn, 'consultarFactura', parts, null)).codigo, '100');
  assert.equal((await call(standIn, 'consultarFactura', parts, CLIENT, (xml) => xml.replace(numeroRegistro, 'REGAGE00e0000000001'))).codigo, '100');
  const expired = envelope('consultarFactura', parts);
  const old = signSoapForTest(expired, CLIENT.key, CLIENT.cert, { now: new Date(Date.now() - 600_000), ttlSeconds: 300 });
  assert.equal((await call(standIn, 'consultarFactura', parts, CLIENT, () => old)).codigo, '100');
  assert.equal((await call(standIn, 'consultarFactura', parts, STRANGER)).codigo, '100');
  // The Body signed, but the signature moved onto another Id: the Body is not what was signed.
  assert.equal((await call(standIn, 'consultarFactura', parts, CLIENT, (xml) => xml.replace(/wsu:Id="Body-/, 'wsu:Id="Other-'))).codigo, '100');
  const { answer } = await call(standIn, 'consultarFactura', parts, null);
  assert.equal(childOf(answer, 'factura')?.getAttribute('xsi:nil'), 'true');
  assert.deepEqual(standIn.received.map((request) => [request.resultado, request.signedBy]), [
    ['0', 'EJEMPLO SOLUCIONES SL'], ['100', ''], ['100', 'EJEMPLO SOLUCIONES SL'], ['100', 'EJEMPLO SOLUCIONES SL'], ['100', 'STRANGER'], ['100', 'EJEMPLO SOLUCIONES SL'], ['100', ''],
  ]);
  const refused = standIn.refused;
  assert.equal(refused.length, 6, refused.join('\n'));
  assert.match(refused[0]!, /^consultarFactura: no wsse:Security header/);
  assert.match(refused[1]!, /xmlsec1 does not verify the signature: .*data and digest do not match/s);
  assert.match(refused[2]!, /wsu:Timestamp expired at/);
  assert.match(refused[3]!, /^consultarFactura signed by STRANGER: the token certificate CN=STRANGER was not issued by the test authority \(issuer CN=other-ca\)/);
  assert.match(refused[4]!, /the signature does not reference the soapenv:Body/);
  assert.deepEqual(standIn.invalid, []);
});

it('answers consultarFactura, anularFactura and consultarListadoFacturas from the states the test sets', async () => {
  const standIn = await start();
  const estado = async (numeroRegistro: string) => {
    const { answer, codigo } = await call(standIn, 'consultarFactura', `<numeroRegistro>${numeroRegistro}</numeroRegistro>`);
    const factura = childOf(answer, 'factura');
    return [codigo, textAt(factura, 'numeroRegistro'), textAt(factura, 'tramitacion', 'codigo'), textAt(factura, 'tramitacion', 'motivo'), textAt(factura, 'anulacion', 'codigo'), textAt(factura, 'anulacion', 'motivo')];
  };
  const anular = async (numeroRegistro: string, motivo: string) => (await call(standIn, 'anularFactura', `<numeroRegistro>${numeroRegistro}</numeroRegistro><motivo>${motivo}</motivo>`));

  const first = standIn.register({ numeroFactura: 'A-1' });
  assert.deepEqual(await estado(first), ['0', first, '1200', '', '4100', '']);
  assert.deepEqual((await estado('REGAGE00e0000000000')).slice(0, 2), ['303', undefined]);
  assert.equal((await anular('REGAGE00e0000000000', 'Error')).codigo, '303');
  assert.equal((await anular(first, '')).codigo, '302');
  assert.equal((await anular(first, 'x'.repeat(256))).codigo, '900');
  const requested = await anular(first, 'Importe erróneo');
  assert.equal(requested.codigo, '0');
  assert.deepEqual([textAt(requested.answer, 'factura', 'numeroRegistro'), textAt(requested.answer, 'factura', 'mensaje')], [first, 'Anulación solicitada correctamente']);
  assert.deepEqual(await estado(first), ['0', first, '1200', '', '4200', 'Importe erróneo']);
  assert.equal((await anular(first, 'Otra vez')).codigo, '307');
  standIn.acceptCancellation(first);
  assert.deepEqual(await estado(first), ['0', first, '3100', '', '4300', 'Importe erróneo']);
  assert.equal((await anular(first, 'Otra vez')).codigo, '304');

  const paid = standIn.register();
  standIn.setState(paid, '1300');
  standIn.setState(paid, '2400');
  standIn.setState(paid, '2500');
  assert.equal((await anular(paid, 'Error')).codigo, '306');
  const rejected = standIn.register();
  standIn.setState(rejected, '2600', 'Falta el número de expediente');
  assert.deepEqual(await estado(rejected), ['0', rejected, '2600', 'Falta el número de expediente', '4100', '']);
  assert.equal((await anular(rejected, 'Error')).codigo, '305');
  const refusedCancellation = standIn.register();
  assert.equal((await anular(refusedCancellation, 'Error')).codigo, '0');
  standIn.rejectCancellation(refusedCancellation, 'La factura es correcta');
  assert.deepEqual(await estado(refusedCancellation), ['0', refusedCancellation, '1200', '', '4400', 'La factura es correcta']);
  assert.throws(() => standIn.setState('REGAGE00e0000000000', '2500'), /holds no invoice/);

  const listado = await call(standIn, 'consultarListadoFacturas', `<request><numeroRegistro>${first}</numeroRegistro><numeroRegistro>REGAGE00e0000000000</numeroRegistro><numeroRegistro>${rejected}</numeroRegistro></request>`);
  assert.equal(listado.codigo, '0');
  const items: string[][] = [];
  for (let node = childOf(listado.answer, 'facturas')?.firstChild; node; node = node.nextSibling) {
    const item = node as Element;
    items.push([textAt(item, 'codigo')!, textAt(item, 'factura', 'numeroRegistro')!, textAt(item, 'factura', 'tramitacion', 'codigo')!]);
  }
  assert.deepEqual(items, [['0', first, '3100'], ['303', 'REGAGE00e0000000000', ''], ['0', rejected, '2600']]);
  const estados = await call(standIn, 'consultarEstados', '');
  assert.match(estados.text, /<estado><nombre>Pagada<\/nombre><codigo>2500<\/codigo>/);
  assert.deepEqual(standIn.invalid, []);
  assert.deepEqual(standIn.refused, []);
});

it('meets the failures the test asks for, in order, and refuses requests off the contract', async () => {
  const standIn = await start();
  const body = signSoapForTest(envelope('consultarEstados', ''), CLIENT.key, CLIENT.cert);
  standIn.failures.push('drop', 'http-500', 'fault');
  await assert.rejects(post(standIn.url, body, headersFor('consultarEstados')), /socket hang up|ECONNRESET/);
  assert.equal((await post(standIn.url, body, headersFor('consultarEstados'))).status, 500);
  const fault = await post(standIn.url, body, headersFor('consultarEstados'));
  assert.equal(fault.status, 500);
  assert.match(fault.text, /<faultcode>SOAP-ENV:Server<\/faultcode>/);
  assert.equal((await post(standIn.url, body, headersFor('consultarEstados'))).status, 200);
  assert.deepEqual(standIn.invalid, []);

  // SOAPAction unquoted, or naming another operation than the body's.
  assert.equal((await post(standIn.url, body, { ...headersFor('consultarEstados'), soapaction: `${FACE}#consultarEstados` })).status, 500);
  assert.equal((await post(standIn.url, body, headersFor('consultarFactura'))).status, 500);
  // A body off the WSDL (enviarFactura without its anexos), correctly signed.
  const parts = enviar(facturae('X-1')).replace('<anexos></anexos>', '');
  const off = await post(standIn.url, signSoapForTest(envelope('enviarFactura', parts), CLIENT.key, CLIENT.cert), headersFor('enviarFactura'));
  assert.equal(off.status, 500);
  assert.equal(standIn.invalid.length, 3, standIn.invalid.join('\n'));
  assert.match(standIn.invalid[0]!, /SOAPAction https:\/\/webservice\.face\.gob\.es#consultarEstados is none of the WSDL's, quoted/);
  assert.match(standIn.invalid[1]!, /the body element \{https:\/\/webservice\.face\.gob\.es\}consultarEstados is not the SOAPAction's/);
  assert.match(standIn.invalid[2]!, /enviarFactura: the request is not what the WSDL says: .*anexos/s);
  assert.deepEqual(standIn.refused, []);
});
