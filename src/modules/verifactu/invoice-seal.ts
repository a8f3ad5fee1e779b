import type { AppContext } from '../../app-context.ts';
import { documentSeal, type DocumentSeal } from '../documents/index.ts';
import { isRecorded } from './record-reads.ts';
import { RECORDED_TYPE } from './recorded-invoices.ts';

/** An issued invoice (one with a record) keeps its identity and amounts, and is never deleted. */
const ISSUED: DocumentSeal = { change: 'invoice-issued', remove: 'fiscal-record-exists' };

/** The documents' seal: a customer invoice with a record is issued for good (RD 1007/2023 art. 8.2). */
export function sealRecordedInvoices(ctx: AppContext): void {
  ctx.hooks.on(documentSeal, async ({ db, type, id }) => (type.name === RECORDED_TYPE && (await isRecorded(db, id)) ? ISSUED : undefined));
}
