import type { DbExecutor } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { round, roundNumber, dec } from './calculation/round.ts';
import { dbBoolean } from '../../db/row-codec.ts';

/** The stock effect of a line: mode (`actualizastock`), quantity and already-served quantity. */
export interface StockEffect {
  mode: number;
  cantidad: number;
  servido: number;
}

const NONE: StockEffect = { mode: 0, cantidad: 0, servido: 0 };

function deltas(effect: StockEffect): { cantidad: number; reservada: number; pterecibir: number } {
  // A negative line never counts more than it holds as served (reference applyStockChanges).
  const servido = effect.cantidad < 0 && effect.servido < effect.cantidad ? effect.cantidad : effect.servido;
  const pending = effect.cantidad - servido;
  return {
    cantidad: effect.mode === 1 || effect.mode === -1 ? effect.mode * pending : 0,
    reservada: effect.mode === -2 ? pending : 0,
    pterecibir: effect.mode === 2 ? pending : 0,
  };
}

/**
 * Moves stock from a line's old effect to its new one (facturascripts-model.md 3.10) in the
 * document's warehouse: reverts the old (mode, quantity, served), applies the new. Lines without a
 * known reference, and products without stock control, do nothing. Selling below zero a product
 * that may not be sold without stock is refused. `line` names the line in the error.
 */
export async function moveStock(
  db: DbExecutor,
  codalmacen: string,
  referencia: string | null,
  before: StockEffect | undefined,
  after: StockEffect | undefined,
  line: string,
): Promise<void> {
  const from = before ?? NONE;
  const to = after ?? NONE;
  if (!referencia || (from.mode === 0 && to.mode === 0)) return;
  const variant = await db.selectFrom('variantes').select(['idproducto']).where('referencia', '=', referencia).executeTakeFirst();
  if (!variant) return;
  const product = await db.selectFrom('productos').select(['nostock', 'ventasinstock']).where('idproducto', '=', variant.idproducto).executeTakeFirst();
  if (!product || dbBoolean(product.nostock)) return;
  const [old, next] = [deltas(from), deltas(to)];
  const change = {
    cantidad: next.cantidad - old.cantidad,
    reservada: next.reservada - old.reservada,
    pterecibir: next.pterecibir - old.pterecibir,
  };
  if (!change.cantidad && !change.reservada && !change.pterecibir) return;

  let stock = await db.selectFrom('stocks').selectAll().where('codalmacen', '=', codalmacen).where('referencia', '=', referencia).executeTakeFirst();
  if (!stock) {
    await db.insertInto('stocks').values({ codalmacen, referencia, idproducto: variant.idproducto, cantidad: 0, reservada: 0, pterecibir: 0, disponible: 0 }).execute();
    stock = await db.selectFrom('stocks').selectAll().where('codalmacen', '=', codalmacen).where('referencia', '=', referencia).executeTakeFirstOrThrow();
  }
  const add = (value: unknown, delta: number) => roundNumber(dec(Number(value ?? 0)).plus(dec(delta)), 3);
  const cantidad = add(stock.cantidad, change.cantidad);
  const reservada = add(stock.reservada, change.reservada);
  if (to.mode === -1 && change.cantidad < 0 && cantidad < 0 && !dbBoolean(product.ventasinstock)) {
    throw new AppError('not-enough-stock', { line, referencia, codalmacen });
  }
  await db
    .updateTable('stocks')
    .set({ cantidad, reservada, pterecibir: add(stock.pterecibir, change.pterecibir), disponible: Math.max(0, round(dec(cantidad).minus(dec(reservada)), 3).toNumber()) })
    .where('idstock', '=', stock.idstock)
    .execute();
  await refreshStockTotals(db, referencia, Number(variant.idproducto));
}

/** Variant and product `stockfis` follow the sum of their stock rows. */
export async function refreshStockTotals(db: DbExecutor, referencia: string, idproducto: number): Promise<void> {
  const sum = async (column: 'referencia' | 'idproducto', value: string | number) => {
    const rows = await db.selectFrom('stocks').select('cantidad').where(column, '=', value).execute();
    return roundNumber(rows.reduce((total, row) => total.plus(dec(Number(row.cantidad))), dec(0)), 3);
  };
  await db.updateTable('variantes').set({ stockfis: await sum('referencia', referencia) }).where('referencia', '=', referencia).execute();
  await db.updateTable('productos').set({ stockfis: await sum('idproducto', idproducto) }).where('idproducto', '=', idproducto).execute();
}
