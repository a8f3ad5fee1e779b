import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Values } from '../../models/define-model.ts';
import { textOf } from '../../models/record-rules.ts';
import { batchInput, companyAccount, paymentOf, storeBatch, type Excluded } from './sepa-batch.ts';
import { transferModel, transferPaymentModel } from './transfer-models.ts';

type Row = Record<string, unknown>;

/**
 * The unpaid supplier receipts a transfer order from `codcuenta` gathers: of its company, due by
 * `hasta`, in no other order, whose payment method pays from this account or names none and is not
 * a direct debit (those the supplier collects itself); each with its supplier's main bank account.
 */
function candidates(db: DbExecutor, dialect: SqlDialect, codcuenta: string, idempresa: number, hasta: string) {
  return db.selectFrom('recibospagosprov as r')
    .innerJoin('proveedores as p', 'p.codproveedor', 'r.codproveedor')
    .leftJoin('formaspago as f', 'f.codpago', 'r.codpago')
    .leftJoin('cuentasbcopro as b', (join) => join.onRef('b.codproveedor', '=', 'r.codproveedor').on('b.principal', '=', dialect.boolean(true) as never))
    .leftJoin('transferenciassepa_recibos as x', 'x.idrecibo', 'r.idrecibo')
    .select(['r.idrecibo', 'r.codproveedor', 'r.importe', 'r.vencimiento', 'r.numero', 'r.codigofactura', 'r.coddivisa', 'p.nombre', 'p.razonsocial', 'b.iban', 'b.swift'])
    .where('r.pagado', '=', dialect.boolean(false) as never).where('r.idempresa', '=', idempresa)
    .where('r.vencimiento', '<=', hasta).where('x.idrecibo', 'is', null)
    .where((eb) => eb.or([eb('f.domiciliado', 'is', null), eb('f.domiciliado', '=', dialect.boolean(false) as never)]))
    .where((eb) => eb.or([eb('f.codcuentabanco', '=', codcuenta), eb('f.codcuentabanco', 'is', null)]))
    .orderBy('r.vencimiento').orderBy('r.idrecibo');
}

/**
 * `POST /api/3/transferenciasepa`: gathers the supplier receipts to pay, leaves out (and lists)
 * those that cannot be paid by transfer, and writes the order with its payments in one
 * transaction; answers it with `recibos` and `excluidos` (422 `no-receipts` when none).
 */
export async function buildTransfer(ctx: AppContext, body: unknown, source: 'json' | 'form'): Promise<Row> {
  const { values, hasta } = batchInput(transferModel, body, source, 'fechaejecucion');
  const { idempresa } = await companyAccount(ctx, ctx.database.kysely, textOf(values.codcuenta));
  return inTransaction(ctx.database, async (trx) => {
    const found = await candidates(trx, ctx.database.dialect, textOf(values.codcuenta), idempresa, hasta).execute();
    const included: Values[] = [];
    const excluidos: Excluded[] = [];
    for (const receipt of found) {
      const payment = paymentOf(receipt, textOf(receipt.razonsocial) || textOf(receipt.nombre));
      if (typeof payment === 'string') excluidos.push({ idrecibo: Number(receipt.idrecibo), codproveedor: textOf(receipt.codproveedor), motivo: payment });
      else included.push({ ...payment, codproveedor: textOf(receipt.codproveedor) });
    }
    return storeBatch(ctx, trx, { header: transferModel, rows: transferPaymentModel }, { ...values, vencimientohasta: hasta, idempresa }, included, excluidos);
  });
}
