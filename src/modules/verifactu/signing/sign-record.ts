import { createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import type { AppContext } from '../../../app-context.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { lazyLibrary } from '../../../lazy-library.ts';
import { certificateOf, type Certificate } from '../certificate.ts';
import { withoutDeclaration } from '../xml-document.ts';

type Xades = typeof import('xadesjs');
type XmlDsig = typeof import('xmldsigjs');
const xades = lazyLibrary<Xades>('xadesjs');
const xmldsig = lazyLibrary<XmlDsig>('xmldsigjs');
const xmldom = lazyLibrary<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');
const xpath = lazyLibrary<unknown>('xpath');

/** A XAdES-EPES signature policy: its identifier, the digest of its document (algorithm and base64 value), and where it is published. */
export interface SignaturePolicy {
  identifier: string;
  hash: 'SHA-1' | 'SHA-256';
  digest: string;
  /** Where it is published (a `SPURI` qualifier); none where the policy's users write no qualifier (Facturae). */
  url?: string;
  description?: string;
}

/**
 * The AGE's signature policy v1.9 that the AEAT's signature specification (v0.1.5) names for NO
 * VERI*FACTU records: its OID, the SHA-1 digest of the policy document, and where it is published.
 */
const AGE_POLICY: SignaturePolicy = {
  identifier: 'urn:oid:2.16.724.1.3.1.1.2.1.9',
  hash: 'SHA-1',
  digest: 'G7roucf600+f03r/o0bAOQ6WAs0=',
  url: 'https://sede.administracion.gob.es/politica_de_firma_anexo_1.pdf',
};
/** The signature's XAdES namespace (ETSI EN 319 132), whose `SignedProperties` a verifier finds by `Id`. */
export const XADES_NAMESPACE = 'http://uri.etsi.org/01903/v1.3.2#';

let ready: Xades | undefined;
function library(): Xades {
  if (!ready) {
    ready = xades();
    const { DOMParser, XMLSerializer } = xmldom();
    ready.setNodeDependencies({ DOMParser, XMLSerializer, xpath: xpath() } as never);
    ready.Application.setEngine('NodeJS', webcrypto as never);
    xmldsig().Application.setEngine('NodeJS', webcrypto as never);
  }
  return ready;
}

/** A certificate ready to sign: its WebCrypto key and the certificate's DER in base64. */
export interface SigningKey {
  key: CryptoKey;
  certificate: string;
  /** The rest of the PKCS#12's chain, each base64 DER (validators of some regimes need the intermediates). */
  chain: string[];
}

/** Keys by certificate: certificate.ts answers the same object for the same file and password. */
const keys = new WeakMap<Certificate, Promise<SigningKey>>();

/** The company's signing key, imported once per certificate. */
async function signingKeyOf(ctx: AppContext, db: DbExecutor, idempresa: number): Promise<SigningKey | undefined> {
  const certificate = await certificateOf(ctx, db, idempresa);
  return certificate && signingKey(certificate);
}

/** A certificate's signing key, imported once per certificate (another fiscal system's too). */
export function signingKey(certificate: Certificate): Promise<SigningKey> {
  let key = keys.get(certificate);
  if (!key) {
    key = importKey(certificate);
    keys.set(certificate, key);
    key.catch(() => keys.delete(certificate));
  }
  return key;
}

/**
 * A NO VERI*FACTU record or event signed with the company's certificate, or why it could not be
 * (no certificate, or one that does not sign): the caller keeps it unsigned and says so.
 */
export async function trySign(ctx: AppContext, db: DbExecutor, idempresa: number, xml: string, signingTime: Date, placeIn?: string): Promise<{ signed: string } | { unsigned: string }> {
  try {
    const signer = await signingKeyOf(ctx, db, idempresa);
    if (!signer) return { unsigned: 'no certificate' };
    return { signed: await signXml(xml, signer, signingTime, { placeIn }) };
  } catch (error) {
    return { unsigned: `the certificate does not sign: ${(error as Error).message}` };
  }
}

async function importKey(certificate: Certificate): Promise<SigningKey> {
  const der = createPrivateKey(certificate.keyPem).export({ type: 'pkcs8', format: 'der' });
  const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  return {
    key,
    certificate: new X509Certificate(certificate.certPem).raw.toString('base64'),
    chain: certificate.chainPem.map((pem) => new X509Certificate(pem).raw.toString('base64')),
  };
}

/**
 * Signs a record (or an event) as the AEAT's signature specification asks: XAdES enveloped, EPES
 * with the AGE policy (or `policy`: another regime's, TicketBAI's), RSA-SHA256, the signer's
 * certificate in `KeyInfo` and `SigningCertificate`, the signature over the whole root element
 * (reference `""`, enveloped-signature and C14N transforms), placed as the last child of the root
 * or of `placeIn` (an event's `Evento`). Answers the signed document, to be kept byte for byte.
 */
export interface SignOptions {
  /** The element the signature closes, by local name (default: the root). */
  placeIn?: string;
  policy?: SignaturePolicy;
  /** `SignerRole/ClaimedRoles/ClaimedRole` (Facturae: `emisor`). */
  signerRole?: string;
  /** The whole document's reference transforms (default: enveloped-signature, then C14N). */
  transforms?: Array<'enveloped' | 'c14n'>;
  /** The certificate's chain in `KeyInfo` too. */
  withChain?: boolean;
  /**
   * `SignedDataObjectProperties/DataObjectFormat` naming the signed document (Facturae: its
   * description, MIME type `text/xml` and the XML record syntax OID), with an `Id` on its reference;
   * and `KeyInfo` signed too (a third reference), as FACe's signers do.
   */
  dataObject?: { description: string; mimeType: string; oid?: string; signKeyInfo?: boolean };
}

export async function signXml(xml: string, signer: SigningKey, signingTime: Date, options: SignOptions = {}): Promise<string> {
  const { placeIn, policy = AGE_POLICY } = options;
  const { Parse, SignedXml, xml: parts } = library();
  const doc = Parse(xml);
  const signature = new SignedXml();
  const references: Array<Record<string, unknown>> = [{ hash: 'SHA-256', transforms: options.transforms ?? ['enveloped', 'c14n'], uri: '' }];
  if (options.dataObject) {
    const suffix = randomBytes(6).toString('hex');
    references[0]!.id = `Reference-${suffix}`;
    references[0]!.type = 'http://www.w3.org/2000/09/xmldsig#Object';
    const format = new parts.DataObjectFormat();
    format.ObjectReference = `#Reference-${suffix}`;
    format.Description = options.dataObject.description;
    if (options.dataObject.oid) {
      format.ObjectIdentifier.Identifier.Qualifier = 'OIDAsURN';
      format.ObjectIdentifier.Identifier.Value = options.dataObject.oid;
    }
    format.MimeType = options.dataObject.mimeType;
    format.Encoding = 'UTF-8';
    signature.SignedProperties.SignedDataObjectProperties.DataObjectFormats.Add(format);
    if (options.dataObject.signKeyInfo) {
      signature.XmlSignature.KeyInfo.Id = `KeyInfo-${suffix}`;
      references.push({ hash: 'SHA-256', uri: `#KeyInfo-${suffix}` });
    }
  }
  await signature.Sign({ name: 'RSASSA-PKCS1-v1_5' } as never, signer.key, doc, {
    references,
    x509: options.withChain ? [signer.certificate, ...signer.chain] : [signer.certificate],
    signingCertificate: signer.certificate,
    signingTime: { value: signingTime },
    policy: {
      hash: policy.hash, digestValue: policy.digest,
      identifier: { value: policy.identifier, ...(policy.description ? { description: policy.description } : {}) },
      ...(policy.url ? { qualifiers: [policy.url] } : {}),
    },
    ...(options.signerRole ? { signerRole: { claimed: [options.signerRole] } } : {}),
  } as never);
  // An event's signature closes its `Evento` (EventosSIF.xsd); a record's closes the record.
  const parent = placeIn ? doc.getElementsByTagNameNS(doc.documentElement.namespaceURI, placeIn)[0] ?? doc.documentElement : doc.documentElement;
  parent.appendChild(signature.GetXml()!);
  return new (xmldom().XMLSerializer)().serializeToString(doc as never);
}

/**
 * Checks a kept signed document: its signature verifies with the certificate it carries, and what
 * it signed is `expected` (the record as its columns and content say). Answers the reason it fails,
 * or undefined.
 */
export async function checkSigned(signed: string, expected: string): Promise<string | undefined> {
  const { Parse } = library();
  try {
    const doc = Parse(signed);
    const element = doc.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')[0];
    if (!element) return 'no signature';
    // Plain XML-DSig core validation (every reference, SignedProperties included, and the
    // signature value by the certificate in KeyInfo): xadesjs cannot read back its own policy qualifiers.
    const signature = new (xmldsig().SignedXml)(doc);
    // xmldsigjs's enveloped-signature transform drops only signatures that are children of the root;
    // an event's sits in its `Evento`. Moved under the root, the document without it is the same and
    // the signature's own in-scope namespaces are the same (all declared on the root), so what is
    // verified is unchanged (xmlsec1 verifies it in place: test/verifactu-signing.test.ts).
    if (element.parentNode !== doc.documentElement) doc.documentElement.appendChild(element);
    signature.LoadXml(element);
    const verified = await signature.Verify().catch((error: Error) => error);
    if (verified !== true) return `the signature does not verify${verified instanceof Error ? `: ${verified.message}` : ''}`.slice(0, 500);
    element.parentNode!.removeChild(element);
    const unsigned = new (xmldom().XMLSerializer)().serializeToString(doc as never);
    if (withoutDeclaration(unsigned) !== withoutDeclaration(expected)) return 'the signed record is not the record kept';
    return undefined;
  } catch (error) {
    return `unreadable signature: ${(error as Error).message}`;
  }
}
