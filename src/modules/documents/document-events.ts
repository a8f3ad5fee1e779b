import type { PublishedEvent } from '../../event-log.ts';
import type { AppEvents } from '../../events.ts';
import { customerReceiptModel, supplierReceiptModel } from '../payments/index.ts';
import type { Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';

type DocumentEventName = 'document.created' | 'document.updated' | 'document.deleted' | 'document.approved';

/** A document event about the header `id` of `type` (its payload may be built at the commit). */
export function documentEvent<K extends DocumentEventName>(type: DocumentType, name: K, id: unknown, payload: AppEvents[K] | (() => AppEvents[K])): PublishedEvent {
  return { type: name, payload, resource: type.header.resource, key: id } as PublishedEvent;
}

/** `receipt.paid` for each receipt that changed, and `payment.recorded` when payments were recorded. */
export function paymentEvents(type: DocumentType, id: unknown, receipts: Row[], paid: boolean, count: number): PublishedEvent[] {
  const receiptModel = type.side === 'sales' ? customerReceiptModel : supplierReceiptModel;
  const events: PublishedEvent[] = receipts.map((receipt) => ({
    type: 'receipt.paid', payload: { type: type.name, receipt, paid }, resource: receiptModel.resource, key: receipt.idrecibo,
  }));
  if (count) events.push({ type: 'payment.recorded', payload: { type: type.name, idfactura: id, count }, resource: type.header.resource, key: id });
  return events;
}
