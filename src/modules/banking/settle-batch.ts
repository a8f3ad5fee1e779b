import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Model } from '../../models/define-model.ts';
import { textOf } from '../../models/record-rules.ts';
import { payReceipts } from '../documents/index.ts';
import { customerReceiptModel, type InvoiceSide } from '../payments/index.ts';
import { operationInput } from './operation-input.ts';
import { remittanceModel, remittanceReceiptModel } from './remittance-models.ts';
import { transferModel } from './transfer-models.ts';

type Row = Record<string, unknown>;

/** A batch kind: where it and its rows live, the state and day its operation sets, whose receipts it settles. */
export interface BatchKind {
  model: Model;
  rows: string;
  state: string;
  dateColumn: string;
  defaultDate: string;
  side: InvoiceSide;
  /** Its rows may stop standing (a returned direct debit): only the standing ones are settled. */
  returns: boolean;
}

export const REMITTANCE: BatchKind = { model: remittanceModel, rows: 'remesassepa_recibos', state: 'cobrada', dateColumn: 'fechacobro', defaultDate: 'fechacargo', side: 'sales', returns: true };
export const TRANSFER: BatchKind = { model: transferModel, rows: 'transferenciassepa_recibos', state: 'pagada', dateColumn: 'fechapago', defaultDate: 'fechaejecucion', side: 'purchase', returns: false };

/**
 * Marks a batch settled by the bank (in the caller's transaction): the claim on its state comes
 * first (two requests cannot both settle it), then every receipt standing in it is paid on `fecha`
 * through the payment path (a movement and its entry each). Receipts paid another way meanwhile
 * are left as they are and listed in `yapagados`.
 */
export async function settleBatch(ctx: AppContext, trx: DbExecutor, kind: BatchKind, id: number, fecha: string): Promise<{ pagados: number[]; yapagados: number[] }> {
  const key = kind.model.primaryKey;
  const claimed = await trx.updateTable(kind.model.table).set({ estado: kind.state, [kind.dateColumn]: fecha })
    .where(key, '=', id).where('estado', '<>', kind.state).executeTakeFirst();
  if (!Number(claimed.numUpdatedRows)) throw validationError({ estado: kind.returns ? 'already-collected' : 'already-paid' });
  let standing = trx.selectFrom(kind.rows).select('idrecibo').where(key, '=', id);
  if (kind.returns) standing = standing.where('vigente', '=', ctx.database.dialect.boolean(true) as never);
  const receipts = (await standing.orderBy('id').execute()).map((row) => Number(row.idrecibo));
  const paid = await payReceipts(ctx, trx, kind.side, receipts.map((idrecibo) => ({ idrecibo, paid: true, fecha })));
  const pagados = paid.map((receipt) => Number(receipt.idrecibo));
  return { pagados, yapagados: receipts.filter((receipt) => !pagados.includes(receipt)) };
}

/** The operation settling a batch (`cobrarRemesa`, `pagarTransferenciaSepa`) `{fecha?}`: default the batch's own date. */
async function settle(ctx: AppContext, kind: BatchKind, id: number, body: unknown): Promise<Row> {
  const { fecha } = operationInput(body, { fecha: 'date' });
  const batch = await ctx.store.get(kind.model, id);
  if (!batch) throw new AppError('record-not-found');
  const day = textOf(fecha ?? batch[kind.defaultDate]);
  const outcome = await inTransaction(ctx.database, (trx) => settleBatch(ctx, trx, kind, id, day));
  return { ...(await ctx.store.get(kind.model, id)), ...outcome };
}

/** `POST /api/3/cobrarRemesa/{id}`: the bank collected the remittance; its receipts are paid. */
export const collectRemittance = (ctx: AppContext, id: number, body: unknown) => settle(ctx, REMITTANCE, id, body);

/** `POST /api/3/pagarTransferenciaSepa/{id}`: the bank executed the transfer order; its supplier receipts are paid. */
export const payTransfer = (ctx: AppContext, id: number, body: unknown) => settle(ctx, TRANSFER, id, body);

/**
 * `POST /api/3/devolverReciboRemesa/{idrecibo}` `{fecha?, gastos?, motivo?}`: the bank returned a
 * collected receipt (see markReturned); `fecha` defaults to today.
 */
export async function returnReceipt(ctx: AppContext, idrecibo: number, body: unknown): Promise<Row> {
  const input = operationInput(body, { fecha: 'date', gastos: 'amount', motivo: 'text' });
  const fecha = textOf(input.fecha ?? ctx.clock.today().date);
  return inTransaction(ctx.database, (trx) => markReturned(ctx, trx, idrecibo, { fecha, gastos: Number(input.gastos ?? 0), motivo: (input.motivo as string | undefined) ?? null }));
}

/**
 * A collected receipt returned by the bank (in the caller's transaction): it is un-paid on `fecha`
 * through the payment path, the bank's fee posted as an expense with it; its row in the remittance
 * records the return and no longer stands, so a later remittance may present the receipt again.
 */
export async function markReturned(ctx: AppContext, trx: DbExecutor, idrecibo: number, input: { fecha: string; gastos: number; motivo: string | null }): Promise<Row> {
  const { fecha, gastos, motivo } = input;
  const standing = await trx.selectFrom('remesassepa_recibos as x').innerJoin('remesassepa as m', 'm.idremesa', 'x.idremesa')
    .select(['x.id', 'x.idremesa', 'm.estado']).where('x.idrecibo', '=', idrecibo).where('x.vigente', '=', ctx.database.dialect.boolean(true) as never).executeTakeFirst();
  if (!standing) {
    const returned = await trx.selectFrom('remesassepa_recibos').select('id').where('idrecibo', '=', idrecibo).executeTakeFirst();
    throw validationError({ idrecibo: returned ? 'already-returned' : 'not-in-remittance' });
  }
  if (standing.estado !== 'cobrada') throw validationError({ idrecibo: 'remittance-not-collected' });
  const marked = await trx.updateTable('remesassepa_recibos')
    .set({ vigente: null, fechadevolucion: fecha, gastosdevolucion: gastos, motivodevolucion: motivo })
    .where('id', '=', Number(standing.id)).where('vigente', '=', ctx.database.dialect.boolean(true) as never).executeTakeFirst();
  if (!Number(marked.numUpdatedRows)) throw validationError({ idrecibo: 'already-returned' });
  const unpaid = await payReceipts(ctx, trx, 'sales', [{ idrecibo, paid: false, fecha, gastosdevolucion: gastos }]);
  if (!unpaid.length) throw validationError({ idrecibo: 'not-paid' });
  return { ...(await ctx.store.get(remittanceReceiptModel, Number(standing.id), trx)), recibo: await ctx.store.get(customerReceiptModel, idrecibo, trx) };
}
