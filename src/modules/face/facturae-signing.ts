import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import { certificateOf, signingKey, signXml, type SignaturePolicy } from '../verifactu/index.ts';

/**
 * The signature policy "Facturae v3.1", the only one FACe and the @firma platform take for
 * Facturae (error 440 otherwise): its exact identifier and the SHA-1 of the policy document
 * (shared/reference/facturae-face.md §1.1), written without qualifiers as every implementation does.
 */
export const FACTURAE_POLICY: SignaturePolicy = {
  identifier: 'http://www.facturae.es/politica_de_firma_formato_facturae/politica_de_firma_formato_facturae_v3_1.pdf',
  hash: 'SHA-1',
  digest: 'Ohixl6upD6av8N7pEvDABhEL6hM=',
  description: 'Política de Firma FacturaE v3.1',
};

/**
 * A Facturae signed by its issuer, as FACe takes it (§1.2-1.6): XAdES-EPES enveloped, the last child
 * of `fe:Facturae`; RSA-SHA256 with SHA-256 digests; the whole document referenced with the
 * enveloped-signature transform only; `SigningTime`, `SigningCertificate`, the policy, the
 * signer's role `emisor`, and the `DataObjectFormat` of the invoice (text/xml, the XML record syntax
 * OID); the certificate and its chain in `KeyInfo`, which is signed too (§1.3-1.5). The company's certificate is
 * VERI*FACTU's (its own, else VERIFACTU_CERT_FILE): without one, 422 `certificado: required`.
 */
export async function signFacturae(ctx: AppContext, db: DbExecutor, idempresa: number, xml: string): Promise<string> {
  const certificate = await certificateOf(ctx, db, idempresa);
  if (!certificate) throw validationError({ certificado: 'required' });
  return signXml(xml, await signingKey(certificate), new Date(ctx.clock.now()), {
    policy: FACTURAE_POLICY, signerRole: 'emisor', transforms: ['enveloped'], withChain: true,
    dataObject: { description: 'Factura electrónica', mimeType: 'text/xml', oid: 'urn:oid:1.2.840.10003.5.109.10', signKeyInfo: true },
  });
}
