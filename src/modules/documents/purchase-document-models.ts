import { f } from '../../models/fields.ts';
import { defineDocument } from './define-document.ts';

const codpago = () => f.string(10, { notNull: true, references: f.ref('formaspago', 'codpago', 'RESTRICT') });

/** Supplier quotes (`presupuestosprov`); unlike the other purchase documents, `codpago` has no FK. */
export const purchaseQuoteModel = defineDocument('purchase', {
  name: 'PresupuestoProveedor',
  table: 'presupuestosprov',
  fields: {
    codpago: f.string(10, { notNull: true }),
    idpresupuesto: f.serial(),
    nombre: f.string(100),
  },
});

/** Supplier orders (`pedidosprov`). */
export const purchaseOrderModel = defineDocument('purchase', {
  name: 'PedidoProveedor',
  table: 'pedidosprov',
  fields: {
    codpago: codpago(),
    idpedido: f.serial(),
    nombre: f.string(100),
  },
});

/** Supplier delivery notes (`albaranesprov`). */
export const purchaseDeliveryNoteModel = defineDocument('purchase', {
  name: 'AlbaranProveedor',
  table: 'albaranesprov',
  fields: {
    codpago: codpago(),
    idalbaran: f.serial(),
    nombre: f.string(100, { notNull: true }),
  },
});

/** Supplier invoices (`facturasprov`). */
export const purchaseInvoiceModel = defineDocument('purchase', {
  name: 'FacturaProveedor',
  table: 'facturasprov',
  invoice: true,
  fields: {
    codpago: codpago(),
    /** Ours: the day the invoice was received and recorded, which puts its VAT in a period (docs/tax-forms.md); its date when empty. */
    fecharecepcion: f.date(),
    nombre: f.string(100, { notNull: true }),
  },
});
