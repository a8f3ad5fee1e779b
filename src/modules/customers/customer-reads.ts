import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';

/**
 * A customer by code, or undefined. With `locking`, its row stays locked until the transaction
 * ends (a sales document's first lock: see documents/customer-risk.ts).
 */
export async function customerOf(db: DbExecutor, codcliente: string, locking?: SqlDialect): Promise<Record<string, unknown> | undefined> {
  const query = db.selectFrom('clientes').selectAll().where('codcliente', '=', codcliente);
  return (locking ? locking.locking(query) : query).executeTakeFirst();
}

/** A customer's payment days (`diaspago`, e.g. "1,15"), or null. */
export async function paymentDaysOf(db: DbExecutor, codcliente: string): Promise<string | null> {
  const customer = await db.selectFrom('clientes').select('diaspago').where('codcliente', '=', codcliente).executeTakeFirst();
  return (customer?.diaspago as string | null | undefined) ?? null;
}
