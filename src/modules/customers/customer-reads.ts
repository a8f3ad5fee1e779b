import type { DbExecutor } from '../../db/database.ts';

/** A customer by code, or undefined. */
export async function customerOf(db: DbExecutor, codcliente: string): Promise<Record<string, unknown> | undefined> {
  return db.selectFrom('clientes').selectAll().where('codcliente', '=', codcliente).executeTakeFirst();
}

/** A customer's payment days (`diaspago`, e.g. "1,15"), or null. */
export async function paymentDaysOf(db: DbExecutor, codcliente: string): Promise<string | null> {
  const customer = await db.selectFrom('clientes').select('diaspago').where('codcliente', '=', codcliente).executeTakeFirst();
  return (customer?.diaspago as string | null | undefined) ?? null;
}
