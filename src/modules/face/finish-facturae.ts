import type { AppContext } from '../../app-context.ts';
import { headerOf } from '../documents/index.ts';
import { einvoiceFinishing } from '../export/index.ts';
import { RECORDED_TYPE } from '../verifactu/index.ts';
import { centresOf, withAdministrativeCentres } from './centres.ts';
import { signFacturae } from './facturae-signing.ts';

/**
 * Every Facturae of an invoice to a public body carries its DIR3 centres; asked signed
 * (`firmada=1`, FACe), it is signed last, with the company's certificate.
 */
export function finishFacturae(ctx: AppContext): void {
  ctx.hooks.on(einvoiceFinishing, async ({ db, type, view, exportType, document, sign }) => {
    if (exportType !== 'FACTURAE' || type.name !== RECORDED_TYPE) return undefined;
    const header = await headerOf(db, type, view.id);
    if (!header) return undefined;
    const centres = await centresOf(db, String(header.codcliente), header.idcontactofact === null || header.idcontactofact === undefined ? null : Number(header.idcontactofact));
    if (centres) document.xml = withAdministrativeCentres(document.xml, centres);
    if (!sign) return undefined;
    document.xml = await signFacturae(ctx, db, Number(header.idempresa), document.xml);
    return 'signed';
  });
}
