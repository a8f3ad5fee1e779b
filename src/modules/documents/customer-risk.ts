import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { AppError } from '../../errors.ts';
import { lockCustomerRisk, reachedRiskOf, storeCustomerRisk, storeEveryRisk, type CustomerRisk } from '../customers/index.ts';
import { paidOnCustomerInvoices } from '../payments/index.ts';
import { documentType, type DocumentType } from './document-types.ts';

/**
 * The customer risk (CustomerRiskTools, facturascripts-model.md 3.6 and 3.13).
 *
 * Locking: every write of a sales document locks its customer's row first, before anything that
 * inserts a row referencing the customer (the databases guard such an insert with a shared lock on
 * the customer's row, which a later exclusive lock would deadlock against). A creation reads the
 * customer locked; a change locks it before the document (customer -> document order everywhere,
 * `lockDocument`). So one customer's documents take turns, and each risk is computed from what
 * the others committed.
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
 * What sales documents add to their customer's reached risk, as one SQL expression: unpaid invoices
 * less what their paid receipts already covered, plus editable (pending) delivery notes and orders;
 * quotes do not count. `scope` narrows each table's rows: a customer's (the whole risk) or one
 * document's (what it adds).
 */
function documentsRisk(dialect: SqlDialect, scope: (table: string) => RawBuilder<unknown> | undefined): RawBuilder<number> {
  const sum = (table: string, flag: 'pagada' | 'editable', value: boolean) => {
    const where = scope(table);
    return where ? sql`COALESCE((SELECT SUM(d.total) FROM ${sql.table(table)} d WHERE ${where} AND ${sql.ref(`d.${flag}`)} = ${dialect.boolean(value)}), 0)` : sql`0`;
  };
  const invoices = scope(INVOICES);
  const covered = invoices ? paidOnCustomerInvoices(dialect, sql`SELECT d.idfactura FROM ${sql.table(INVOICES)} d WHERE ${invoices} AND d.pagada = ${dialect.boolean(false)}`) : sql`0`;
  return sql<number>`${sum(INVOICES, 'pagada', false)} - ${covered} + ${sum(DELIVERY_NOTES, 'editable', true)} + ${sum(ORDERS, 'editable', true)}`;
}

const rounded = (risk: RawBuilder<number>, decimals: number) => sql<number>`ROUND(CAST(${risk} AS DECIMAL(20, 6)), ${sql.raw(String(decimals))})`;

/** A customer's reached risk, counted over all its documents (`codcliente` a value, or a column of an outer query). Rounded to `decimals`. */
export function reachedRisk(dialect: SqlDialect, codcliente: string | RawBuilder<unknown>, decimals: number): RawBuilder<number> {
  return rounded(documentsRisk(dialect, () => sql`d.codcliente = ${codcliente}`), decimals);
}

/**
 * The one sales document a write changed, when it changed no other: what the document added to the
 * risk before the write (0 for a new one: `documentRisk` read it otherwise), so that only the
 * difference is added to the stored risk.
 */
export interface ChangedDocument {
  type: DocumentType;
  id: number;
  before: number;
}

/** The rows of one document, in `documentsRisk`'s terms. */
const oneDocument = (type: DocumentType, id: number) => (table: string) => (table === type.header.table ? sql`${sql.ref(`d.${type.key}`)} = ${id}` : undefined);

/** What one sales document adds to its customer's risk now (read before a write that changes only it). */
export async function documentRisk(db: DbExecutor, dialect: SqlDialect, type: DocumentType, id: number): Promise<number> {
  const row = await db.selectNoFrom(sql<number>`${documentsRisk(dialect, oneDocument(type, id))}`.as('risk')).executeTakeFirst();
  return Number(row?.risk ?? 0);
}

/**
 * Keeps a locked customer's `riesgoalcanzado` after a change to its sales documents or receipts,
 * in the change's transaction (one statement). A change that names no document counts the risk
 * again over all the customer's documents. A change of one document only (`changed`: a creation, a
 * payment) adds what that document adds now less what it added before to the stored risk: constant
 * work however long the customer's history (issue 28), kept exact by the counts of every other
 * change and checked by the `customer-risk` job (risk-recount.ts). With `document`, the change
 * saved a sales document (created, edited, its lines or status changed): as in the reference, a
 * document with a total is refused (422 `customer-reached-maximum-risk`) while the customer's risk
 * is above its `riesgomax` (none when null or 0) — the risk this change leads to, unless the change
 * lowered it (paying, removing lines, closing an order stay possible).
 */
export async function settleCustomerRisk(db: DbExecutor, dialect: SqlDialect, decimals: number, customer: LockedCustomer | undefined, document?: { total?: unknown }, changed?: ChangedDocument): Promise<void> {
  if (!customer) return;
  const risk = changed
    ? rounded(sql<number>`COALESCE(riesgoalcanzado, 0) + ${documentsRisk(dialect, oneDocument(changed.type, changed.id))} - ${changed.before}`, decimals)
    : reachedRisk(dialect, customer.codcliente, decimals);
  await storeCustomerRisk(db, customer.codcliente, risk);
  if (!document || !Number(document.total) || !(customer.riesgomax > 0)) return;
  const reached = await reachedRiskOf(db, customer.codcliente);
  if (reached > customer.riesgomax && reached >= customer.riesgoalcanzado) {
    throw new AppError('customer-reached-maximum-risk', { riesgomax: customer.riesgomax, riesgoalcanzado: reached });
  }
}

/**
 * Every customer's reached risk set again from its documents, in the caller's transaction
 * (documents written around the document writers: an import). Answers how many differed.
 */
export function rebuildCustomerRisks(trx: DbExecutor, dialect: SqlDialect, decimals: number): Promise<number> {
  return storeEveryRisk(trx, (codcliente) => reachedRisk(dialect, codcliente, decimals));
}
