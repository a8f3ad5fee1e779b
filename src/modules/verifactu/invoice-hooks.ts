import type { AppContext } from '../../app-context.ts';
import { validationError } from '../../errors.ts';
import { documentSeal, type DocumentSeal } from '../documents/index.ts';
import { fiscalQr } from '../export/index.ts';
import { storedSwitchOf } from './company-switch.ts';
import { isRecorded, recordsOfInvoices } from './record-reads.ts';
import { RECORDED_TYPE } from './record-issued-invoices.ts';
import { spanishTaxId } from './spanish-tax-id.ts';

/** An issued invoice (one with a record) keeps its identity and amounts, and is never deleted. */
const ISSUED: DocumentSeal = { change: 'invoice-issued', remove: 'fiscal-record-exists' };

/** The documents' seal: a customer invoice with a record is issued for good (RD 1007/2023 art. 8.2). */
export function sealRecordedInvoices(ctx: AppContext): void {
  ctx.hooks.on(documentSeal, async ({ db, type, doc }) => (type.name === RECORDED_TYPE && (await isRecorded(db, Number(doc[type.key]))) ? ISSUED : undefined));
}

/**
 * The QR on an exported invoice: its alta's address, with «QR tributario:» above it and, in
 * VERI*FACTU mode, «VERI*FACTU» below it (Orden HAC/1177/2024 art. 20-21).
 */
export function printInvoiceQr(ctx: AppContext): void {
  ctx.hooks.on(fiscalQr, async ({ db, type, doc }) => {
    if (type.name !== RECORDED_TYPE) return undefined;
    const alta = (await recordsOfInvoices(db, [Number(doc[type.key])])).get(Number(doc[type.key]))?.find((record) => record.tipo === 'alta');
    if (!alta?.qr) return undefined;
    return { url: String(alta.qr), caption: 'QR tributario:', legend: alta.modo === 'verifactu' ? 'VERI*FACTU' : null };
  });
}

/**
 * A company's tax id is the issuer of its records: while its records are kept it must be a valid
 * Spanish NIF, and once it has records it no longer changes (a new NIF is a new taxpayer with a
 * chain of its own: a new company).
 */
export function guardIssuerTaxId(ctx: AppContext): void {
  ctx.store.watch(['empresa'], async (db, _model, change) => {
    if (change?.action !== 'update' || String(change.before?.cifnif ?? '') === String(change.record.cifnif ?? '')) return;
    const idempresa = Number(change.record.idempresa);
    const head = await db.selectFrom('verifactu_cadenas').select('registros').where('idempresa', '=', idempresa).executeTakeFirst();
    if (Number(head?.registros ?? 0) > 0) throw validationError({ cifnif: 'fiscal-records-exist' });
    const current = await storedSwitchOf(db, idempresa);
    if (current && current.modo !== 'off' && !spanishTaxId(change.record.cifnif as string | null)) throw validationError({ cifnif: 'invalid-spanish-tax-id' });
  });
}
