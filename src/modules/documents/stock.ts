import { sql } from 'kysely';
import type { DbExecutor, Engine } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { AppError } from '../../errors.ts';

/** The stock effect of a line: mode (`actualizastock`), quantity and already-served quantity. */
export interface StockEffect {
  mode: number;
  cantidad: number;
  servido: number;
}

const NONE: StockEffect = { mode: 0, cantidad: 0, servido: 0 };

/** Quantities keep 3 decimals; PostgreSQL rounds only decimals, hence the cast (MySQL needs the scale). */
const round3 = (expression: ReturnType<typeof sql>) => sql`ROUND(CAST(${expression} AS DECIMAL(20, 6)), 3)`;

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

/** The stock row of a reference in a warehouse, created when missing; concurrent creators are fine. */
async function ensureStockRow(db: DbExecutor, engine: Engine, codalmacen: string, referencia: string, idproducto: unknown): Promise<void> {
  const insert = db.insertInto('stocks').values({ codalmacen, referencia, idproducto, cantidad: 0, reservada: 0, pterecibir: 0, disponible: 0 });
  await (engine === 'mysql' ? insert.ignore() : insert.onConflict((oc) => oc.columns(['codalmacen', 'referencia']).doNothing())).execute();
}

/**
 * Moves stock from a line's old effect to its new one (facturascripts-model.md 3.10) in the
 * document's warehouse: reverts the old (mode, quantity, served), applies the new. Lines without a
 * known reference, and products without stock control, do nothing. The change is applied as a
 * relative update (concurrent documents never lose each other's moves); selling below zero a
 * product that may not be sold without stock is refused. `line` names the line in the error.
 */
export async function moveStock(
  db: DbExecutor,
  engine: Engine,
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

  await ensureStockRow(db, engine, codalmacen, referencia, variant.idproducto);
  const max = engine === 'sqlite' ? 'MAX' : 'GREATEST';
  await db
    .updateTable('stocks')
    .set({
      cantidad: round3(sql`cantidad + ${change.cantidad}`),
      reservada: round3(sql`reservada + ${change.reservada}`),
      pterecibir: round3(sql`pterecibir + ${change.pterecibir}`),
    })
    .where('codalmacen', '=', codalmacen)
    .where('referencia', '=', referencia)
    .execute();
  // The row is now locked by this transaction: the value read is the one this move produced.
  const stock = await db.selectFrom('stocks').select(['cantidad']).where('codalmacen', '=', codalmacen).where('referencia', '=', referencia).executeTakeFirstOrThrow();
  if (to.mode === -1 && change.cantidad < 0 && Number(stock.cantidad) < 0 && !dbBoolean(product.ventasinstock)) {
    throw new AppError('not-enough-stock', { line, referencia, codalmacen });
  }
  await db.updateTable('stocks')
    .set({ disponible: round3(sql`${sql.raw(max)}(0, cantidad - reservada)`) })
    .where('codalmacen', '=', codalmacen).where('referencia', '=', referencia).execute();
  await refreshStockTotals(db, referencia, Number(variant.idproducto));
}

/** Variant and product `stockfis` follow the sum of their stock rows (computed in the database). */
export async function refreshStockTotals(db: DbExecutor, referencia: string, idproducto: number): Promise<void> {
  await db.updateTable('variantes')
    .set({ stockfis: sql`(SELECT ${round3(sql`COALESCE(SUM(s.cantidad), 0)`)} FROM stocks s WHERE s.referencia = ${referencia})` })
    .where('referencia', '=', referencia).execute();
  await db.updateTable('productos')
    .set({ stockfis: sql`(SELECT ${round3(sql`COALESCE(SUM(s.cantidad), 0)`)} FROM stocks s WHERE s.idproducto = ${idproducto})` })
    .where('idproducto', '=', idproducto).execute();
}
