import { defineModel } from '../../models/define-model.ts';
import { currentTime, f, sortedFields, today, type Fields } from '../../models/fields.ts';

/** Payment columns of both tables (facturascripts-model.md 2.7); `receipts` is the receipt table paid. */
function paymentFields(receipts: string): Fields {
  return {
    codpago: f.string(10),
    fecha: f.date({ notNull: true, initial: today }),
    hora: f.time({ initial: currentTime }),
    // The payment's accounting entry (docs/accounting.md); no foreign key: an entry deleted by hand clears it (posting module).
    idasiento: f.integer(),
    idpago: f.serial(),
    idrecibo: f.integer({ notNull: true, references: f.ref(receipts, 'idrecibo', 'CASCADE') }),
    importe: f.double({ default: 0 }),
    nick: f.string(50),
  };
}

/** Payment movements of customer receipts (`pagoscli`): + when paid, - when un-paid. */
export const customerPaymentModel = defineModel({
  name: 'PagoCliente',
  table: 'pagoscli',
  fields: sortedFields({
    ...paymentFields('recibospagoscli'),
    customid: f.string(30),
    customstatus: f.string(30),
    gastos: f.double({ default: 0 }),
    /** Ours: on an un-payment by the bank's return of a direct debit, the fee the bank charged for it (posted as an expense). */
    gastosdevolucion: f.double({ default: 0 }),
  }),
});

/** Payment movements of supplier receipts (`pagosprov`). */
export const supplierPaymentModel = defineModel({
  name: 'PagoProveedor',
  table: 'pagosprov',
  fields: paymentFields('recibospagosprov'),
});
