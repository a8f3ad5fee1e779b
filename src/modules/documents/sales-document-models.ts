import { f } from '../../models/fields.ts';
import { defineDocument, defineDocumentLine } from './define-document.ts';

/** Customer quotes (`presupuestoscli`): the only sales document that may lack a customer. */
export const salesQuoteModel = defineDocument('sales', {
  name: 'PresupuestoCliente',
  table: 'presupuestoscli',
  fields: {
    cifnif: f.string(30),
    finoferta: f.date(),
    idpresupuesto: f.serial(),
    nombrecliente: f.string(100),
  },
});

/** Customer orders (`pedidoscli`). */
export const salesOrderModel = defineDocument('sales', {
  name: 'PedidoCliente',
  table: 'pedidoscli',
  fields: {
    cifnif: f.string(30, { notNull: true }),
    finoferta: f.date(),
    idpedido: f.serial(),
    nombrecliente: f.string(100),
  },
});

/** Customer delivery notes (`albaranescli`). */
export const salesDeliveryNoteModel = defineDocument('sales', {
  name: 'AlbaranCliente',
  table: 'albaranescli',
  fields: {
    cifnif: f.string(30, { notNull: true }),
    idalbaran: f.serial(),
    nombrecliente: f.string(100),
  },
});

/** Customer invoices (`facturascli`). */
export const salesInvoiceModel = defineDocument('sales', {
  name: 'FacturaCliente',
  table: 'facturascli',
  invoice: true,
  fields: {
    cifnif: f.string(30, { notNull: true }),
    nombrecliente: f.string(100, { notNull: true }),
  },
});

/** Lines of customer quotes (`lineaspresupuestoscli`). */
export const salesQuoteLineModel = defineDocumentLine('sales', {
  name: 'LineaPresupuestoCliente',
  table: 'lineaspresupuestoscli',
  document: salesQuoteModel,
  actualizastock: 0,
});

/** Lines of customer orders (`lineaspedidoscli`). */
export const salesOrderLineModel = defineDocumentLine('sales', {
  name: 'LineaPedidoCliente',
  table: 'lineaspedidoscli',
  document: salesOrderModel,
  actualizastock: 0,
});

/** Lines of customer delivery notes (`lineasalbaranescli`). */
export const salesDeliveryNoteLineModel = defineDocumentLine('sales', {
  name: 'LineaAlbaranCliente',
  table: 'lineasalbaranescli',
  document: salesDeliveryNoteModel,
  actualizastock: 0,
});

/** Lines of customer invoices (`lineasfacturascli`). */
export const salesInvoiceLineModel = defineDocumentLine('sales', {
  name: 'LineaFacturaCliente',
  table: 'lineasfacturascli',
  document: salesInvoiceModel,
  actualizastock: -1,
  invoice: true,
});
