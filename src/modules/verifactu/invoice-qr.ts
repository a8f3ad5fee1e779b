import type { AppContext } from '../../app-context.ts';
import { fiscalQr } from '../export/index.ts';
import { recordsOfInvoices } from './record-reads.ts';
import { RECORDED_TYPE } from './recorded-invoices.ts';

/**
 * The QR on an exported invoice: its alta's address, with «QR tributario:» above it and, in
 * VERI*FACTU mode, «VERI*FACTU» below it (Orden HAC/1177/2024 art. 20-21).
 */
export function printInvoiceQr(ctx: AppContext): void {
  ctx.hooks.on(fiscalQr, async ({ db, type, doc }) => {
    if (type.name !== RECORDED_TYPE) return undefined;
    const id = Number(doc[type.key]);
    const alta = (await recordsOfInvoices(db, [id])).get(id)?.find((record) => record.tipo === 'alta');
    if (!alta?.qr) return undefined;
    return { url: String(alta.qr), caption: 'QR tributario:', legend: alta.modo === 'verifactu' ? 'VERI*FACTU' : null };
  });
}
