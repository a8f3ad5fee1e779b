import type { Module } from '../../module.ts';
import { customerPaymentModel, supplierPaymentModel } from './payment-models.ts';
import { customerReceiptModel, supplierReceiptModel } from './receipt-models.ts';
import { recordPaymentsOfReceiptWrites } from './receipt-payments.ts';

export { customerPaymentModel, customerReceiptModel, supplierPaymentModel, supplierReceiptModel };

/** Receipts of invoices and the payment movements recorded against them. */
export function paymentsModule(): Module {
  return { name: 'payments', models: [customerReceiptModel, supplierReceiptModel, customerPaymentModel, supplierPaymentModel], setup: recordPaymentsOfReceiptWrites };
}
export {
  applyPaymentDays, deleteReceipts, insertReceiptStatement, newReceipt, paymentRecorded, paymentsRemoving, type RecordedPayment, type RemovedPayments, invoiceReceipts, deleteUnpaidReceipts, markOverdueReceipts, overdueInvoiceIds, setReceiptsPaid, setReceiptPaid, invoicePaymentState, syncReceipts,
  type ReceiptPaymentChange,
  type InvoiceForReceipts, type InvoicePaymentState, type InvoiceSide, type ReceiptTerms,
} from './receipts.ts';
export { paidOnCustomerInvoices } from './paid-receipts.ts';
export {
  invoiceWithReceipts, paymentModelOf, paymentPreparing, planReceiptPayments, receiptUpdates,
  type PaymentInWriting, type PaymentPart, type PreparingPayment, type ReceiptChange,
} from './payment-plan.ts';
