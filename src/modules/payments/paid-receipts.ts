import { sql, type Expression, type RawBuilder } from 'kysely';
import type { SqlDialect } from '../../db/dialect.ts';
import { customerReceiptModel } from './receipt-models.ts';

/**
 * What the customer has paid through receipts of the given customer invoices (`invoiceIds`, a
 * subquery of ids), as an SQL subquery: the sum of their paid receipts (0 when none). For the
 * customer risk, which the documents module computes in one statement.
 */
export function paidOnCustomerInvoices(dialect: SqlDialect, invoiceIds: Expression<unknown>): RawBuilder<number> {
  return sql<number>`(SELECT COALESCE(SUM(r.importe), 0) FROM ${sql.table(customerReceiptModel.table)} r WHERE r.pagado = ${dialect.boolean(true)} AND r.idfactura IN (${invoiceIds}))`;
}
