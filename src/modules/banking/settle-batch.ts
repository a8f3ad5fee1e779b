import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';
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
 * first (two requests cannot both settle it); then every receipt standing in it is paid on `fecha`
 * through the payment path (a movement and its entry each, into the batch's bank account), each
 * for the amount the bank was sent: a receipt changed or removed since is refused (422
 * `recibos: amount-changed | receipts-removed`, nothing settled). Receipts paid another way
 * meanwhile are left as they are and listed in `yapagados`.
 */
export async function settleBatch(ctx: AppContext, trx: DbExecutor, kind: BatchKind, id: number, fecha: string): Promise<{ pagados: number[]; yapagados: number[] }> {
  const key = kind.model.primaryKey;
  const { dialect } = ctx.database;
  const claimed = await trx.updateTable(kind.model.table).set({ estado: kind.state, [kind.dateColumn]: fecha })
    .where(key, '=', id).where('estado', '<>', kind.state).executeTakeFirst();
  if (!Number(claimed.numUpdatedRows)) throw validationError({ estado: kind.returns ? 'already-collected' : 'already-paid' });
  const batch = (await trx.selectFrom(kind.model.table).select(['codcuenta', 'numrecibos']).where(key, '=', id).executeTakeFirst())!;
  const receiptTable = kind.side === 'sales' ? 'recibospagoscli' : 'recibospagosprov';
  const rows = await trx.selectFrom(`${kind.rows} as x`).leftJoin(`${receiptTable} as r`, 'r.idrecibo', 'x.idrecibo')
    .select(['x.id', 'x.idrecibo', 'x.importe', 'r.importe as actual', ...(kind.returns ? ['x.vigente' as const] : [])]).where(`x.${key}` as never, '=', id as never).orderBy('x.id').execute();
  if (rows.length !== Number(batch.numrecibos)) throw validationError({ recibos: 'receipts-removed' });
  const standing = kind.returns ? rows.filter((row) => dbBoolean(row.vigente)) : rows;
  const changed = standing.filter((row) => Math.round(Number(row.importe) * 100) !== Math.round(Number(row.actual) * 100)).map((row) => Number(row.idrecibo));
  if (changed.length) throw new AppError('validation-failed', { fields: { recibos: 'amount-changed' }, idrecibos: changed });
  const receipts = standing.map((row) => Number(row.idrecibo));
  const paid = await payReceipts(ctx, trx, kind.side, receipts.map((idrecibo) => ({ idrecibo, paid: true, fecha, codcuenta: textOf(batch.codcuenta) })));
  const pagados = paid.map((receipt) => Number(receipt.idrecibo));
  // What the collection itself paid: only those a return may un-pay.
  if (kind.returns && pagados.length) await trx.updateTable(kind.rows).set({ cobrado: dialect.boolean(true) }).where(key, '=', id).where('idrecibo', 'in', pagados).execute();
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
 * through the payment path (into the remittance's account), the bank's fee posted as an expense
 * with it; its row in the remittance records the return and no longer stands, so a later remittance
 * may present the receipt again. A receipt the collection did not pay (`cobrado` false) stays paid.
 */
export async function markReturned(ctx: AppContext, trx: DbExecutor, idrecibo: number, input: { fecha: string; gastos: number; motivo: string | null }): Promise<Row> {
  const { fecha, gastos, motivo } = input;
  const { dialect } = ctx.database;
  const standing = await trx.selectFrom('remesassepa_recibos as x').innerJoin('remesassepa as m', 'm.idremesa', 'x.idremesa')
    .select(['x.id', 'x.idremesa', 'x.cobrado', 'm.estado', 'm.codcuenta']).where('x.idrecibo', '=', idrecibo).where('x.vigente', '=', dialect.boolean(true) as never).executeTakeFirst();
  if (!standing) {
    const returned = await trx.selectFrom('remesassepa_recibos').select('id').where('idrecibo', '=', idrecibo).executeTakeFirst();
    throw validationError({ idrecibo: returned ? 'already-returned' : 'not-in-remittance' });
  }
  if (standing.estado !== 'cobrada') throw validationError({ idrecibo: 'remittance-not-collected' });
  const marked = await trx.updateTable('remesassepa_recibos')
    .set({ vigente: null, fechadevolucion: fecha, gastosdevolucion: gastos, motivodevolucion: motivo })
    .where('id', '=', Number(standing.id)).where('vigente', '=', dialect.boolean(true) as never).executeTakeFirst();
  if (!Number(marked.numUpdatedRows)) throw validationError({ idrecibo: 'already-returned' });
  // A receipt the customer had paid another way before the collection (`yapagados`) stays paid:
  // the bank gave back a second collection, not the payment.
  if (dbBoolean(standing.cobrado)) {
    const unpaid = await payReceipts(ctx, trx, 'sales', [{ idrecibo, paid: false, fecha, gastosdevolucion: gastos, codcuenta: textOf(standing.codcuenta) }]);
    if (!unpaid.length) throw validationError({ idrecibo: 'not-paid' });
  }
  return { ...(await ctx.store.get(remittanceReceiptModel, Number(standing.id), trx)), recibo: await ctx.store.get(customerReceiptModel, idrecibo, trx) };
}
