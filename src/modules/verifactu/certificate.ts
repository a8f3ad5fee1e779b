import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { pki } from 'node-forge';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import { lazyLibrary } from '../../lazy-library.ts';

const forge = lazyLibrary<typeof import('node-forge')>('node-forge');

/** A taxpayer's certificate as read from its PKCS#12: what TLS presents and what signs the records. */
export interface Certificate {
  pfx: Buffer;
  passphrase: string;
  /** PKCS#8 PEM of the private key. */
  keyPem: string;
  /** The certificate of that key, then the rest of the file's chain, as PEM. */
  certPem: string;
  chainPem: string[];
  subject: string;
  notAfter: Date;
}

export class CertificateError extends Error {
  override name = 'CertificateError';
}

/**
 * Reads a PKCS#12 file (the form the FNMT and the other Spanish authorities issue certificates in):
 * its private key and the certificate that goes with it. Throws a CertificateError when the password
 * is wrong or the file holds no usable key and certificate.
 */
export function readPkcs12(pfx: Buffer, passphrase: string): Certificate {
  const { asn1, pkcs12, pki: keys } = forge();
  let p12: ReturnType<typeof pkcs12.pkcs12FromAsn1>;
  try {
    p12 = pkcs12.pkcs12FromAsn1(asn1.fromDer(pfx.toString('binary')), passphrase);
  } catch (error) {
    throw new CertificateError(`not a PKCS#12 file this password opens: ${(error as Error).message}`);
  }
  const bagsOf = (type: string) => p12.getBags({ bagType: type })[type] ?? [];
  const key = [...bagsOf(keys.oids.pkcs8ShroudedKeyBag!), ...bagsOf(keys.oids.keyBag!)].find((bag) => bag.key)?.key as pki.rsa.PrivateKey | undefined;
  const certificates = bagsOf(keys.oids.certBag!).map((bag) => bag.cert).filter((cert): cert is pki.Certificate => Boolean(cert));
  if (!key) throw new CertificateError('the PKCS#12 file holds no private key');
  if (!key.n) throw new CertificateError('the private key is not an RSA key (the AEAT signatures are RSA-SHA256)');
  const own = certificates.find((cert) => (cert.publicKey as pki.rsa.PublicKey).n?.equals(key.n));
  if (!own) throw new CertificateError('the PKCS#12 file holds no certificate of its private key');
  const subject = own.subject.attributes.map((attribute) => `${attribute.shortName ?? attribute.name}=${String(attribute.value)}`).join(', ');
  return {
    pfx,
    passphrase,
    keyPem: keys.privateKeyInfoToPem(keys.wrapRsaPrivateKey(keys.privateKeyToAsn1(key))),
    certPem: keys.certificateToPem(own),
    chainPem: certificates.filter((cert) => cert !== own).map((cert) => keys.certificateToPem(cert)),
    subject,
    notAfter: own.validity.notAfter,
  };
}

const opened = new WeakMap<AppContext, Map<string, Certificate>>();

/**
 * Opens a PKCS#12 once per file and password (its key derivation and decryption take tens of
 * milliseconds, on the event loop, and a NO VERI*FACTU record is signed under its chain's lock).
 */
function openCached(ctx: AppContext, pfx: Buffer, passphrase: string): Certificate {
  const byDigest = opened.get(ctx) ?? new Map<string, Certificate>();
  opened.set(ctx, byDigest);
  const digest = createHash('sha256').update(pfx).update('\0').update(passphrase).digest('hex');
  let certificate = byDigest.get(digest);
  if (!certificate) {
    certificate = readPkcs12(pfx, passphrase);
    if (byDigest.size >= 64) byDigest.clear();
    byDigest.set(digest, certificate);
  }
  return certificate;
}

/**
 * The certificate a company's records are sent or signed with: its own (set through
 * `verifactuempresa`), else the installation's (VERIFACTU_CERT_FILE, read again whenever it changed,
 * so that a renewed file is taken without a restart). Undefined when neither is set.
 */
export async function certificateOf(ctx: AppContext, db: DbExecutor, idempresa: number): Promise<Certificate | undefined> {
  const row = await db.selectFrom('verifactu_empresas').select(['certificado', 'certificadoclave']).where('idempresa', '=', idempresa).executeTakeFirst();
  if (row?.certificado) return openCertificate(ctx, String(row.certificado), String(row.certificadoclave ?? ''));
  const { certFile, certPassword } = ctx.config.verifactu;
  if (!certFile) return undefined;
  return openCached(ctx, await fileBytes(ctx, certFile), certPassword);
}

/** A kept certificate (base64 of its PKCS#12, as a switch stores it) opened, once per file and password. */
export function openCertificate(ctx: AppContext, base64: string, passphrase: string): Certificate {
  return openCached(ctx, Buffer.from(base64, 'base64'), passphrase);
}

const files = new WeakMap<AppContext, { path: string; mtimeMs: number; size: number; bytes: Buffer }>();

/** A file's bytes, read again only when its size or modification time changed (a renewed certificate). */
async function fileBytes(ctx: AppContext, path: string): Promise<Buffer> {
  const { mtimeMs, size } = await stat(path);
  const kept = files.get(ctx);
  if (kept?.path === path && kept.mtimeMs === mtimeMs && kept.size === size) return kept.bytes;
  const bytes = await readFile(path);
  files.set(ctx, { path, mtimeMs, size, bytes });
  return bytes;
}

/**
 * A certificate sent through the API (base64 of the PKCS#12 file, with its password) is opened
 * before it is kept, so that a wrong password is refused now rather than at the first message; its
 * holder and expiry are shown in its place (the file and the password never are). The fields
 * `certificado`, `certificadoclave`, `certificadotitular`, `certificadocaduca` of a switch model.
 */
export function acceptCertificate(values: Record<string, unknown>, existing: Record<string, unknown> | undefined): void {
  if (values.certificado === undefined && values.certificadoclave === undefined) return;
  const file = values.certificado === undefined ? existing?.certificado : values.certificado;
  if (file === null || file === '' || file === undefined) {
    Object.assign(values, { certificado: null, certificadoclave: null, certificadotitular: null, certificadocaduca: null });
    return;
  }
  const text = String(file).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw validationError({ certificado: 'invalid-base64' });
  try {
    // The password that will be kept: a given one (null clears it), else the one kept already.
    const password = values.certificadoclave !== undefined ? values.certificadoclave : existing?.certificadoclave;
    const certificate = readPkcs12(Buffer.from(text, 'base64'), String(password ?? ''));
    Object.assign(values, { certificado: text, certificadotitular: certificate.subject.slice(0, 255), certificadocaduca: certificate.notAfter.toISOString().slice(0, 10) });
  } catch (error) {
    if (error instanceof CertificateError) throw validationError({ certificado: 'invalid-certificate' });
    throw error;
  }
}
