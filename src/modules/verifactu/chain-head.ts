import type { DbExecutor } from '../../db/database.ts';

/** A company's chain as its head row has it: how many records, and when the last was generated (`FechaHoraHusoGenRegistro`). */
export async function chainHeadOf(db: DbExecutor, idempresa: number): Promise<{ registros: number; last: string | null }> {
  const head = await db.selectFrom('verifactu_cadenas').select(['registros', 'fechahorahuso']).where('idempresa', '=', idempresa).executeTakeFirst();
  return { registros: Number(head?.registros ?? 0), last: (head?.fechahorahuso as string | null | undefined) ?? null };
}
