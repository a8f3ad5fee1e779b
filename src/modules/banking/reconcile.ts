import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean, rowReader } from '../../db/row-codec.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { textOf } from '../../models/record-rules.ts';
import { payReceipts } from '../documents/index.ts';
import { loadCandidates, proposalsFor, type Proposal } from './matching.ts';
import { operationInput } from './operation-input.ts';
import { markReturned, REMITTANCE, settleBatch, TRANSFER } from './settle-batch.ts';
import { bankMovementModel } from './statement-models.ts';

type Row = Record<string, unknown>;

/** A movement as matching reads it. */
function toMatch(movement: Row) {
  return {
    fecha: textOf(movement.fecha), fechavalor: textOf(movement.fechavalor), importe: Number(movement.importe), concepto: textOf(movement.concepto), texto: textOf(movement.texto),
    endtoend: textOf(movement.endtoend).split(' ').filter(Boolean), ibancontraparte: movement.ibancontraparte ? textOf(movement.ibancontraparte) : null,
  };
}

/**
 * Receipts a client names for a movement: the customer's for money in, the supplier's for money
 * out; each unpaid, of the account's company, and together exactly the movement's amount.
 */
async function namedReceipts(db: DbExecutor, movement: Row, ids: number[]): Promise<Proposal> {
  const incoming = Number(movement.importe) > 0;
  const rows = await db.selectFrom(incoming ? 'recibospagoscli' : 'recibospagosprov').select(['idrecibo', 'importe', 'pagado', 'idempresa']).where('idrecibo', 'in', ids).execute();
  if (rows.length !== ids.length) throw validationError({ idrecibos: 'not-found' });
  if (rows.some((row) => dbBoolean(row.pagado))) throw validationError({ idrecibos: 'already-paid' });
  if (rows.some((row) => Number(row.idempresa) !== Number(movement.idempresa))) throw validationError({ idrecibos: 'other-company' });
  const sum = rows.reduce((total, row) => total + Math.round(Number(row.importe) * 100), 0);
  if (sum !== Math.abs(Math.round(Number(movement.importe) * 100))) throw validationError({ idrecibos: 'amount-mismatch' });
  return { tipo: incoming ? 'recibos' : 'recibosproveedor', idrecibos: ids, puntuacion: 100, motivos: ['elegido'] };
}

/** Carries out a proposal on the movement's value day, in the caller's transaction; answers what it settled. */
async function apply(ctx: AppContext, trx: DbExecutor, proposal: Proposal, movement: Row): Promise<Row> {
  const fecha = textOf(movement.fechavalor);
  switch (proposal.tipo) {
    case 'remesa': {
      const { pagados } = await settleBatch(ctx, trx, REMITTANCE, proposal.idremesa!, fecha);
      return { idremesa: proposal.idremesa, recibos: pagados };
    }
    case 'transferencia': {
      const { pagados } = await settleBatch(ctx, trx, TRANSFER, proposal.idtransferencia!, fecha);
      return { idtransferencia: proposal.idtransferencia, recibos: pagados };
    }
    case 'devolucion': {
      const idrecibo = proposal.idrecibos![0]!;
      // The bank's fee taken in the same movement: what it took beyond the receipt, posted with the return.
      const receipt = await trx.selectFrom('recibospagoscli').select('importe').where('idrecibo', '=', idrecibo).executeTakeFirst();
      const fee = Math.max(0, Math.abs(Math.round(Number(movement.importe) * 100)) - Math.round(Number(receipt?.importe ?? 0) * 100));
      const returned = await markReturned(ctx, trx, idrecibo, { fecha, gastos: fee / 100, motivo: textOf(movement.texto).slice(0, 100) || null });
      return { idrecibo, idremesa: returned.idremesa, recibos: [idrecibo] };
    }
    default: {
      const side = proposal.tipo === 'recibos' ? 'sales' : 'purchase';
      const paid = await payReceipts(ctx, trx, side, proposal.idrecibos!.map((idrecibo) => ({ idrecibo, paid: true, fecha, codcuenta: textOf(movement.codcuenta) })));
      if (paid.length !== proposal.idrecibos!.length) throw validationError({ idrecibos: 'already-paid' });
      return { idrecibo: proposal.idrecibos![0], recibos: proposal.idrecibos };
    }
  }
}

/**
 * `POST /api/3/conciliarMovimiento/{id}`: with no body, the movement's best proposal (computed again
 * now, so that what others paid meanwhile is not proposed); with `{idrecibos: [...]}`, those
 * receipts. What it pays is paid through the payment path on the movement's value day; the movement
 * records what it settled. All in one transaction, claimed first (a movement is reconciled once).
 */
export async function reconcileMovement(ctx: AppContext, id: number, body: unknown): Promise<Row> {
  const { idrecibos } = operationInput(body, { idrecibos: 'ids' });
  return inTransaction(ctx.database, async (trx) => {
    const claimed = await trx.updateTable(bankMovementModel.table).set({ conciliado: ctx.database.dialect.boolean(true), fechaconciliacion: ctx.clock.timestamp() })
      .where('idmovimiento', '=', id).where('conciliado', '=', ctx.database.dialect.boolean(false) as never).executeTakeFirst();
    const movement = await trx.selectFrom(bankMovementModel.table).selectAll().where('idmovimiento', '=', id).executeTakeFirst();
    if (!movement) throw new AppError('record-not-found');
    if (!Number(claimed.numUpdatedRows)) throw validationError({ estado: 'already-reconciled' });
    if (Number(movement.importe) === 0) throw validationError({ importe: 'zero' });
    let proposal: Proposal | undefined;
    if (idrecibos) proposal = await namedReceipts(trx, movement, idrecibos as number[]);
    else {
      const candidates = await loadCandidates(ctx, trx, textOf(movement.codcuenta), Number(movement.idempresa), [toMatch(movement)]);
      proposal = proposalsFor(toMatch(movement), candidates)[0];
      if (!proposal) throw validationError({ propuestas: 'none' });
    }
    const settled = await apply(ctx, trx, proposal, movement);
    await trx.updateTable(bankMovementModel.table).set({
      idrecibo: (settled.idrecibo as number | undefined) ?? null, idremesa: (settled.idremesa as number | undefined) ?? null, idtransferencia: (settled.idtransferencia as number | undefined) ?? null,
      recibos: JSON.stringify(settled.recibos ?? []),
    }).where('idmovimiento', '=', id).execute();
    return rowReader(bankMovementModel)((await trx.selectFrom(bankMovementModel.table).selectAll().where('idmovimiento', '=', id).executeTakeFirst())!);
  });
}
