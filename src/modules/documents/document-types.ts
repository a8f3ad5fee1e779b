import type { Model } from '../../models/define-model.ts';
import { customerPaymentModel, supplierPaymentModel } from '../payments/payment-models.ts';
import { customerReceiptModel, supplierReceiptModel } from '../payments/receipt-models.ts';
import {
  purchaseDeliveryNoteLineModel, purchaseDeliveryNoteModel, purchaseInvoiceLineModel, purchaseInvoiceModel,
  purchaseOrderLineModel, purchaseOrderModel, purchaseQuoteLineModel, purchaseQuoteModel,
} from './purchase-document-models.ts';
import {
  salesDeliveryNoteLineModel, salesDeliveryNoteModel, salesInvoiceLineModel, salesInvoiceModel,
  salesOrderLineModel, salesOrderModel, salesQuoteLineModel, salesQuoteModel,
} from './sales-document-models.ts';
import type { Side } from './calculation/types.ts';

/** One of the eight business documents, with everything the engine needs to know about it. */
export interface DocumentType {
  /** The reference's class name, also `tipodoc` of statuses and sequences (`FacturaCliente`). */
  name: string;
  side: Side;
  header: Model;
  line: Model;
  /** Header primary key, also the lines' link column (`idfactura`). */
  key: string;
  /** `codcliente` or `codproveedor`. */
  subject: 'codcliente' | 'codproveedor';
  /** Header column holding the subject's name. */
  subjectName: 'nombrecliente' | 'nombre';
  invoice: boolean;
  /** Default numbering pattern (facturascripts-model.md 3.8). */
  pattern: string;
  receipt?: Model;
  payment?: Model;
}

function type(name: string, side: Side, header: Model, line: Model, prefix: string, invoice = false): DocumentType {
  const sales = side === 'sales';
  return {
    name,
    side,
    header,
    line,
    key: header.primaryKey,
    subject: sales ? 'codcliente' : 'codproveedor',
    subjectName: sales ? 'nombrecliente' : 'nombre',
    invoice,
    pattern: `${prefix}{EJE}{SERIE}{NUM}`,
    ...(invoice ? { receipt: sales ? customerReceiptModel : supplierReceiptModel, payment: sales ? customerPaymentModel : supplierPaymentModel } : {}),
  };
}

export const DOCUMENT_TYPES: readonly DocumentType[] = [
  type('PresupuestoCliente', 'sales', salesQuoteModel, salesQuoteLineModel, 'PRE'),
  type('PedidoCliente', 'sales', salesOrderModel, salesOrderLineModel, 'PED'),
  type('AlbaranCliente', 'sales', salesDeliveryNoteModel, salesDeliveryNoteLineModel, 'ALB'),
  type('FacturaCliente', 'sales', salesInvoiceModel, salesInvoiceLineModel, 'F', true),
  type('PresupuestoProveedor', 'purchase', purchaseQuoteModel, purchaseQuoteLineModel, 'PREP'),
  type('PedidoProveedor', 'purchase', purchaseOrderModel, purchaseOrderLineModel, 'PEDP'),
  type('AlbaranProveedor', 'purchase', purchaseDeliveryNoteModel, purchaseDeliveryNoteLineModel, 'ALBP'),
  type('FacturaProveedor', 'purchase', purchaseInvoiceModel, purchaseInvoiceLineModel, 'FP', true),
];

export function documentType(name: string): DocumentType {
  const found = DOCUMENT_TYPES.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`unknown document type ${name}`);
  return found;
}
