import { createHash, createSign, randomBytes } from 'node:crypto';
import { lazyLibrary } from '../../lazy-library.ts';
import type { Certificate } from '../verifactu/index.ts';

const xmldom = lazyLibrary<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');
const xmldsig = lazyLibrary<typeof import('xmldsigjs')>('xmldsigjs');
type Element = import('@xmldom/xmldom').Element;

const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
const WSSE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const X509V3 = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';
const BASE64 = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';
/** How long a request's timestamp lasts (FACe's example: 5 minutes). */
const LIFETIME_MS = 5 * 60_000;

/** Exclusive C14N (W3C, 2002) of an element in its document: what each reference's digest and the signature cover. */
function exclusiveC14n(element: Element): string {
  const transform = new (xmldsig().XmlDsigExcC14NTransform)();
  transform.LoadInnerXml(element as never);
  return transform.GetOutput() as string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A SOAP 1.1 request to FACe signed as its service requires (OASIS WS-Security 1.0, X.509 token
 * profile; shared/reference/facturae-face.md §3.3): in `wsse:Security` (mustUnderstand), the
 * certificate as a `BinarySecurityToken`, a `Timestamp` (5 minutes), and an XML signature
 * (exclusive C14N, RSA-SHA256, SHA-256 digests) over the `Body` and the `Timestamp`, its key named
 * by a reference to the token. `body` is the operation's element, as XML.
 */
export function signedEnvelope(body: string, certificate: Certificate, now: number): string {
  const id = (what: string) => `${what}-${randomBytes(8).toString('hex')}`;
  const [token, timestamp, bodyId, signatureId] = [id('X509'), id('TS'), id('Body'), id('SIG')];
  const der = certificate.certPem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '');
  const envelope = `<soapenv:Envelope xmlns:soapenv="${SOAP}" xmlns:wsu="${WSU}"><soapenv:Header>` +
    `<wsse:Security xmlns:wsse="${WSSE}" soapenv:mustUnderstand="1">` +
    `<wsse:BinarySecurityToken EncodingType="${BASE64}" ValueType="${X509V3}" wsu:Id="${token}">${der}</wsse:BinarySecurityToken>` +
    `<wsu:Timestamp wsu:Id="${timestamp}"><wsu:Created>${stamp(now)}</wsu:Created><wsu:Expires>${stamp(now + LIFETIME_MS)}</wsu:Expires></wsu:Timestamp>` +
    `</wsse:Security></soapenv:Header><soapenv:Body wsu:Id="${bodyId}">${body}</soapenv:Body></soapenv:Envelope>`;
  const { DOMParser, XMLSerializer } = xmldom();
  const doc = new DOMParser().parseFromString(envelope, 'text/xml');
  const byId = (wanted: string) => Array.from(doc.getElementsByTagName('*')).find((element) => element.getAttributeNS(WSU, 'Id') === wanted) as unknown as Element;
  const reference = (uri: string, element: Element) => `<ds:Reference URI="#${uri}"><ds:Transforms><ds:Transform Algorithm="${EXC_C14N}"/></ds:Transforms>` +
    `<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>${sha256(exclusiveC14n(element))}</ds:DigestValue></ds:Reference>`;
  const signedInfo = `<ds:SignedInfo><ds:CanonicalizationMethod Algorithm="${EXC_C14N}"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>` +
    `${reference(bodyId, byId(bodyId))}${reference(timestamp, byId(timestamp))}</ds:SignedInfo>`;
  const signature = new DOMParser().parseFromString(`<ds:Signature xmlns:ds="${DS}" Id="${signatureId}">${signedInfo}<ds:SignatureValue/>` +
    `<ds:KeyInfo><wsse:SecurityTokenReference xmlns:wsse="${WSSE}"><wsse:Reference URI="#${token}" ValueType="${X509V3}"/></wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>`, 'text/xml').documentElement!;
  const security = doc.getElementsByTagNameNS(WSSE, 'Security')[0]!;
  const placed = security.appendChild(doc.importNode(signature, true)) as unknown as Element;
  const info = placed.getElementsByTagNameNS(DS, 'SignedInfo')[0] as unknown as Element;
  const value = createSign('RSA-SHA256').update(exclusiveC14n(info), 'utf8').sign(certificate.keyPem, 'base64');
  placed.getElementsByTagNameNS(DS, 'SignatureValue')[0]!.appendChild(doc.createTextNode(value));
  return `<?xml version="1.0" encoding="UTF-8"?>${new XMLSerializer().serializeToString(doc)}`;
}
