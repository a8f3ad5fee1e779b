import type { AppContext } from '../../../app-context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { validationError } from '../../../errors.ts';
import { storedSwitchOf } from '../company-switch.ts';
import { periodInput } from '../period.ts';
import { requerimientoModel } from './send-models.ts';

/**
 * `verifactuRequerimiento`: registers a request of the AEAT to a NO VERI*FACTU company (its
 * reference, as the AEAT's notice gives it, and the period whose records it asks for). The sender
 * answers it with the records of the period (send-records.ts), under the company's flow control.
 */
export async function registerRequest(ctx: AppContext, body: unknown): Promise<Record<string, unknown>> {
  const input = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const fields: Record<string, string> = {};
  const idempresa = Number(input.idempresa);
  if (!Number.isInteger(idempresa) || idempresa < 1) fields.idempresa = input.idempresa === undefined ? 'required' : 'invalid-integer';
  const ref = typeof input.refrequerimiento === 'string' ? input.refrequerimiento.trim() : '';
  if (!ref) fields.refrequerimiento = 'required';
  else if (ref.length > 18 || !/^[\x20-\x7E]+$/.test(ref)) fields.refrequerimiento = 'invalid-value';
  const { desde, hasta } = periodInput(input, fields);
  // A request covers records already made: a period still open would end the answer before its last records exist.
  if (!fields.hasta && hasta >= ctx.clock.today().date) fields.hasta = 'period-not-closed';
  if (Object.keys(fields).length) throw validationError(fields);
  return inTransaction(ctx.database, async (db) => {
    const company = await storedSwitchOf(db, idempresa);
    const kept = await db.selectFrom('registros_verifactu').select('id').where('idempresa', '=', idempresa).where('modo', '=', 'noverifactu').limit(1).executeTakeFirst();
    // Only a NO VERI*FACTU system is asked: a VERI*FACTU one has sent its records already.
    if (company?.modo !== 'noverifactu' && !kept) throw validationError({ idempresa: 'not-noverifactu' });
    const [id] = await ctx.store.insertMany(requerimientoModel, [{ idempresa, refrequerimiento: ref, desde, hasta }], db);
    return (await ctx.store.get(requerimientoModel, id!, db))!;
  });
}
