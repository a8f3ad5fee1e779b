import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';

/** A company's chain as its head row has it: how many records, and when the last was generated (`FechaHoraHusoGenRegistro`). */
export async function chainHeadOf(db: DbExecutor, idempresa: number): Promise<{ registros: number; last: string | null }> {
  const head = await db.selectFrom('verifactu_cadenas').select(['registros', 'fechahorahuso']).where('idempresa', '=', idempresa).executeTakeFirst();
  return { registros: Number(head?.registros ?? 0), last: (head?.fechahorahuso as string | null | undefined) ?? null };
}

/** The company's chain head, locked for the rest of the transaction (made when missing). */
export async function lockedHead(db: DbExecutor, ctx: AppContext, idempresa: number): Promise<Record<string, unknown>> {
  const { dialect } = ctx.database;
  const read = () => dialect.locking(db.selectFrom('verifactu_cadenas').selectAll().where('idempresa', '=', idempresa)).executeTakeFirst();
  const head = await read();
  if (head) return head;
  // A switch written around the store (a plugin's SQL) has no head yet: it is made now (with the switch otherwise).
  await dialect.insertIgnore(db.insertInto('verifactu_cadenas').values({ idempresa, registros: 0 }), ['idempresa']).execute();
  return (await read())!;
}
