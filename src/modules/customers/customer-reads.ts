import type { DbExecutor } from '../../db/database.ts';

/** A customer's payment days (`diaspago`, e.g. "1,15"), or null. */
export async function paymentDaysOf(db: DbExecutor, codcliente: string): Promise<string | null> {
  const customer = await db.selectFrom('clientes').select('diaspago').where('codcliente', '=', codcliente).executeTakeFirst();
  return (customer?.diaspago as string | null | undefined) ?? null;
}
