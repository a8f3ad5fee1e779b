import type { Model } from '../../models/define-model.ts';
import { purchaseDeliveryNoteModel, purchaseInvoiceModel, purchaseOrderModel, purchaseQuoteModel } from './purchase-document-models.ts';
import { salesDeliveryNoteModel, salesInvoiceModel, salesOrderModel, salesQuoteModel } from './sales-document-models.ts';
import { defineDocumentLine } from './define-document.ts';
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
  /** Where the subject lives: `clientes` or `proveedores`. */
  subjectTable: 'clientes' | 'proveedores';
  /** Header column holding the subject's name. */
  subjectName: 'nombrecliente' | 'nombre';
  invoice: boolean;
  /** Default numbering pattern (facturascripts-model.md 3.8). */
  pattern: string;
}

function type(side: Side, header: Model, prefix: string, invoice = false): DocumentType {
  const sales = side === 'sales';
  return {
    name: header.name,
    side,
    header,
    line: defineDocumentLine(side, header, invoice),
    key: header.primaryKey,
    subject: sales ? 'codcliente' : 'codproveedor',
    subjectTable: sales ? 'clientes' : 'proveedores',
    subjectName: sales ? 'nombrecliente' : 'nombre',
    invoice,
    pattern: `${prefix}{EJE}{SERIE}{NUM}`,
  };
}

export const DOCUMENT_TYPES: readonly DocumentType[] = [
  type('sales', salesQuoteModel, 'PRE'),
  type('sales', salesOrderModel, 'PED'),
  type('sales', salesDeliveryNoteModel, 'ALB'),
  type('sales', salesInvoiceModel, 'F', true),
  type('purchase', purchaseQuoteModel, 'PREP'),
  type('purchase', purchaseOrderModel, 'PEDP'),
  type('purchase', purchaseDeliveryNoteModel, 'ALBP'),
  type('purchase', purchaseInvoiceModel, 'FP', true),
];

export function documentType(name: string): DocumentType {
  const found = DOCUMENT_TYPES.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`unknown document type ${name}`);
  return found;
}
