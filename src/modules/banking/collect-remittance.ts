import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { textOf } from '../../models/record-rules.ts';
import { payReceipts } from '../documents/index.ts';
import { customerReceiptModel } from '../payments/index.ts';
import { operationInput } from './operation-input.ts';
import { remittanceModel, remittanceReceiptModel } from './remittance-models.ts';

type Row = Record<string, unknown>;

/** The receipts standing in a remittance (not returned), in the order it was built. */
export function standingReceipts(db: DbExecutor, ctx: AppContext, idremesa: number) {
  return db.selectFrom('remesassepa_recibos').selectAll().where('idremesa', '=', idremesa)
    .where('vigente', '=', ctx.database.dialect.boolean(true) as never).orderBy('id').execute();
}

/**
 * Marks a remittance collected (in its transaction): the claim on its state comes first (so two
 * requests cannot both collect it), then every receipt standing in it is paid on `fecha` through the
 * payment path (a movement and its entry each). Receipts paid another way meanwhile are left as
 * they are and listed in `yapagados`.
 */
export async function markCollected(ctx: AppContext, trx: DbExecutor, idremesa: number, fecha: string): Promise<{ pagados: number[]; yapagados: number[] }> {
  const claimed = await trx.updateTable('remesassepa').set({ estado: 'cobrada', fechacobro: fecha })
    .where('idremesa', '=', idremesa).where('estado', '<>', 'cobrada').executeTakeFirst();
  if (!Number(claimed.numUpdatedRows)) throw validationError({ estado: 'already-collected' });
  const receipts = await standingReceipts(trx, ctx, idremesa);
  const paid = await payReceipts(ctx, trx, 'sales', receipts.map((row) => ({ idrecibo: Number(row.idrecibo), paid: true, fecha })));
  const pagados = paid.map((receipt) => Number(receipt.idrecibo));
  return { pagados, yapagados: receipts.map((row) => Number(row.idrecibo)).filter((id) => !pagados.includes(id)) };
}

/** `POST /api/3/cobrarRemesa/{id}` `{fecha?}` (default the remittance's `fechacargo`). */
export async function collectRemittance(ctx: AppContext, id: number, body: unknown): Promise<Row> {
  const { fecha } = operationInput(body, { fecha: 'date' });
  const remittance = await ctx.store.get(remittanceModel, id);
  if (!remittance) throw new AppError('record-not-found');
  const day = textOf(fecha ?? remittance.fechacargo);
  const outcome = await inTransaction(ctx.database, (trx) => markCollected(ctx, trx, id, day));
  return { ...(await ctx.store.get(remittanceModel, id)), ...outcome };
}

/**
 * `POST /api/3/devolverReciboRemesa/{idrecibo}` `{fecha?, gastos?, motivo?}`: the bank returned a
 * collected receipt. It is un-paid on `fecha` (default today) through the payment path, the bank's
 * fee posted as an expense with it; its row in the remittance records the return and no longer
 * stands, so a later remittance may present the receipt again.
 */
export async function returnReceipt(ctx: AppContext, idrecibo: number, body: unknown): Promise<Row> {
  const input = operationInput(body, { fecha: 'date', gastos: 'amount', motivo: 'text' });
  const fecha = textOf(input.fecha ?? ctx.clock.today().date);
  const gastos = Number(input.gastos ?? 0);
  return inTransaction(ctx.database, async (trx) => {
    const standing = await trx.selectFrom('remesassepa_recibos as x').innerJoin('remesassepa as m', 'm.idremesa', 'x.idremesa')
      .select(['x.id', 'x.idremesa', 'm.estado']).where('x.idrecibo', '=', idrecibo).where('x.vigente', '=', ctx.database.dialect.boolean(true) as never).executeTakeFirst();
    if (!standing) {
      const returned = await trx.selectFrom('remesassepa_recibos').select('id').where('idrecibo', '=', idrecibo).executeTakeFirst();
      throw validationError({ idrecibo: returned ? 'already-returned' : 'not-in-remittance' });
    }
    if (standing.estado !== 'cobrada') throw validationError({ idrecibo: 'remittance-not-collected' });
    const marked = await trx.updateTable('remesassepa_recibos')
      .set({ vigente: null, fechadevolucion: fecha, gastosdevolucion: gastos, motivodevolucion: (input.motivo as string | undefined) ?? null })
      .where('id', '=', Number(standing.id)).where('vigente', '=', ctx.database.dialect.boolean(true) as never).executeTakeFirst();
    if (!Number(marked.numUpdatedRows)) throw validationError({ idrecibo: 'already-returned' });
    const unpaid = await payReceipts(ctx, trx, 'sales', [{ idrecibo, paid: false, fecha, gastosdevolucion: gastos }]);
    if (!unpaid.length) throw validationError({ idrecibo: 'not-paid' });
    return { ...(await ctx.store.get(remittanceReceiptModel, Number(standing.id), trx)), recibo: await ctx.store.get(customerReceiptModel, idrecibo, trx) };
  });
}
