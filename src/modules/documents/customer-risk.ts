import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { AppError } from '../../errors.ts';
import { lockCustomerRisk, reachedRiskOf, storeCustomerRisk, type CustomerRisk } from '../customers/index.ts';
import { paidOnCustomerInvoices } from '../payments/index.ts';
import { documentType, type DocumentType } from './document-types.ts';

/**
 * The customer risk (CustomerRiskTools, facturascripts-model.md 3.6 and 3.13).
 *
 * Locking: every write of a sales document locks its customer's row first, before anything that
 * inserts a row referencing the customer (the databases guard such an insert with a shared lock on
 * the customer's row, which a later exclusive lock would deadlock against). A creation reads the
 * customer locked; a change locks it before the document (customer.ts -> document order
 * everywhere). So one customer's documents take turns, and each risk is computed from what the
 * others committed.
 */

/** A locked customer and its risk as it was before the write. */
export interface LockedCustomer extends CustomerRisk {
  codcliente: string;
}

const [INVOICES, DELIVERY_NOTES, ORDERS] = ['FacturaCliente', 'AlbaranCliente', 'PedidoCliente'].map((name) => documentType(name).header.table) as [string, string, string];

/** Locks a customer (see above); undefined when it does not exist. */
export async function lockCustomer(db: DbExecutor, dialect: SqlDialect, codcliente: string): Promise<LockedCustomer | undefined> {
  const risk = await lockCustomerRisk(db, dialect, codcliente);
  return risk && { codcliente, ...risk };
}

/** Locks the customer of an existing sales document (nothing for a purchase document or none). */
export async function lockCustomerOfDocument(db: DbExecutor, dialect: SqlDialect, type: DocumentType, id: unknown): Promise<LockedCustomer | undefined> {
  if (type.side !== 'sales') return undefined;
  const doc = await db.selectFrom(type.header.table).select('codcliente').where(type.key, '=', id as number).executeTakeFirst();
  return doc?.codcliente ? lockCustomer(db, dialect, String(doc.codcliente)) : undefined;
}

/**
 * A customer's reached risk as one SQL expression: its unpaid invoices less what their paid
 * receipts already covered, plus its editable (pending) delivery notes and orders; quotes do not
 * count. Rounded to `decimals`.
 */
function reachedRisk(dialect: SqlDialect, codcliente: string, decimals: number): RawBuilder<number> {
  const sum = (table: string, flag: 'pagada' | 'editable', value: boolean) =>
    sql`COALESCE((SELECT SUM(d.total) FROM ${sql.table(table)} d WHERE d.codcliente = ${codcliente} AND ${sql.ref(`d.${flag}`)} = ${dialect.boolean(value)}), 0)`;
  const unpaid = sql`SELECT d.idfactura FROM ${sql.table(INVOICES)} d WHERE d.codcliente = ${codcliente} AND d.pagada = ${dialect.boolean(false)}`;
  const risk = sql`${sum(INVOICES, 'pagada', false)} - ${paidOnCustomerInvoices(dialect, unpaid)} + ${sum(DELIVERY_NOTES, 'editable', true)} + ${sum(ORDERS, 'editable', true)}`;
  return sql<number>`ROUND(CAST(${risk} AS DECIMAL(20, 6)), ${sql.raw(String(decimals))})`;
}

/**
 * Recomputes a locked customer's `riesgoalcanzado` after a change to its sales documents or
 * receipts, in the change's transaction (one statement). With `document`, the change saved a sales
 * document (created, edited, its lines or status changed): as in the reference, a document with a
 * total is refused (422 `customer-reached-maximum-risk`) while the customer's risk is above its
 * `riesgomax` (none when null or 0) — the risk this change leads to, unless the change lowered
 * it (paying, removing lines, closing an order stay possible).
 */
export async function settleCustomerRisk(db: DbExecutor, dialect: SqlDialect, decimals: number, customer: LockedCustomer | undefined, document?: { total?: unknown }): Promise<void> {
  if (!customer) return;
  await storeCustomerRisk(db, customer.codcliente, reachedRisk(dialect, customer.codcliente, decimals));
  if (!document || !Number(document.total) || !(customer.riesgomax > 0)) return;
  const reached = await reachedRiskOf(db, customer.codcliente);
  if (reached > customer.riesgomax && reached >= customer.riesgoalcanzado) {
    throw new AppError('customer-reached-maximum-risk', { riesgomax: customer.riesgomax, riesgoalcanzado: reached });
  }
}
