import { sql } from 'kysely';
import type { DbExecutor } from '../../../db/database.ts';
import { rowReader } from '../../../db/row-codec.ts';
import { RECORD_STATES } from '../record-models.ts';
import { verifactuEnvioModel } from './send-models.ts';

const readMessage = rowReader(verifactuEnvioModel);

/**
 * What the operator sees of a company's sending (`verifactuEstado`, the admin console): its records
 * by state, the sender's wait and last failure, the last message, and the records the AEAT rejected
 * or accepted with errors that no later record of their invoice corrects yet.
 */
export async function sendStatus(db: DbExecutor, idempresa: number): Promise<Record<string, unknown>> {
  const counts = Object.fromEntries(RECORD_STATES.map((state) => [state, 0]));
  const rows = await db.selectFrom('registros_verifactu').select(['estado', sql<number>`count(*)`.as('n')]).where('idempresa', '=', idempresa).groupBy('estado').execute();
  for (const row of rows) counts[String(row.estado)] = Number(row.n);
  const queue = await db.selectFrom('verifactu_colas').selectAll().where('idempresa', '=', idempresa).executeTakeFirst();
  const last = await db.selectFrom('verifactu_envios').selectAll().where('idempresa', '=', idempresa).orderBy('id', 'desc').limit(1).executeTakeFirst();
  const errors = await db.selectFrom('registros_verifactu as r')
    .select(['r.id', 'r.idfactura', 'r.numserie', 'r.fechaexpedicion', 'r.tipo', 'r.estado', 'r.codigoerror', 'r.descripcionerror'])
    .where('r.idempresa', '=', idempresa).where('r.estado', 'in', ['incorrecto', 'aceptadoconerrores'])
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('registros_verifactu as n').select('n.id').whereRef('n.idfactura', '=', 'r.idfactura').whereRef('n.id', '>', 'r.id'))))
    .orderBy('r.id').limit(100).execute();
  const next = queue?.siguiente === null || queue?.siguiente === undefined ? null : new Date(Number(queue.siguiente)).toISOString();
  return {
    idempresa,
    registros: counts,
    siguienteenvio: next,
    tiempoespera: queue?.tiempoespera ?? null,
    fallos: Number(queue?.fallos ?? 0),
    ultimoerror: queue?.ultimoerror ?? null,
    ultimoenvio: last ? readMessage(last) : null,
    porcorregir: errors,
  };
}
