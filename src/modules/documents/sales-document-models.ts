import { f } from '../../models/fields.ts';
import { defineDocument } from './define-document.ts';

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
