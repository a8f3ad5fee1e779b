import { f } from '../../models/fields.ts';
import { defineDocument, defineDocumentLine } from './define-document.ts';

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
    nombre: f.string(100, { notNull: true }),
  },
});

/** Lines of supplier quotes (`lineaspresupuestosprov`). */
export const purchaseQuoteLineModel = defineDocumentLine('purchase', {
  name: 'LineaPresupuestoProveedor',
  table: 'lineaspresupuestosprov',
  document: purchaseQuoteModel,
  actualizastock: 0,
});

/** Lines of supplier orders (`lineaspedidosprov`). */
export const purchaseOrderLineModel = defineDocumentLine('purchase', {
  name: 'LineaPedidoProveedor',
  table: 'lineaspedidosprov',
  document: purchaseOrderModel,
  actualizastock: 0,
});

/** Lines of supplier delivery notes (`lineasalbaranesprov`). */
export const purchaseDeliveryNoteLineModel = defineDocumentLine('purchase', {
  name: 'LineaAlbaranProveedor',
  table: 'lineasalbaranesprov',
  document: purchaseDeliveryNoteModel,
  actualizastock: 0,
});

/** Lines of supplier invoices (`lineasfacturasprov`). */
export const purchaseInvoiceLineModel = defineDocumentLine('purchase', {
  name: 'LineaFacturaProveedor',
  table: 'lineasfacturasprov',
  document: purchaseInvoiceModel,
  actualizastock: 1,
  invoice: true,
});
