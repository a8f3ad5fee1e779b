import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { AppError } from '../../errors.ts';

/**
 * The one place stock changes (facturascripts-model.md 3.10): document lines move it, and writes
 * to the Stock model itself end here too, so a product's and a variant's `stockfis` and a row's
 * `disponible` are right after any stock write. The rules are expressed once, in SQL, so that
 * concurrent writers never lose each other's moves.
 */

/** The stock effect of a line: mode (`actualizastock`), quantity and already-served quantity. */
export interface StockEffect {
  mode: number;
  cantidad: number;
  servido: number;
}

export interface StockMove {
  codalmacen: string;
  referencia: string | null;
  before: StockEffect | undefined;
  after: StockEffect | undefined;
  /** Names the line in a `not-enough-stock` error. */
  line: string;
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

/**
 * Moves stock from a line's old effect to its new one in the document's warehouse: reverts the old
 * (mode, quantity, served), applies the new, as a relative update. Lines without a known
 * reference, and products without stock control, do nothing; selling below zero a product that
 * may not be sold without stock is refused.
 */
export async function moveStock(db: DbExecutor, dialect: SqlDialect, move: StockMove): Promise<void> {
  const from = move.before ?? NONE;
  const to = move.after ?? NONE;
  const { codalmacen, referencia } = move;
  if (!referencia || (from.mode === 0 && to.mode === 0)) return;
  const product = await db.selectFrom('variantes as v').innerJoin('productos as p', 'p.idproducto', 'v.idproducto')
    .select(['v.idproducto', 'p.nostock', 'p.ventasinstock']).where('v.referencia', '=', referencia).executeTakeFirst();
  if (!product || dbBoolean(product.nostock)) return;
  const [old, next] = [deltas(from), deltas(to)];
  const change = { cantidad: next.cantidad - old.cantidad, reservada: next.reservada - old.reservada, pterecibir: next.pterecibir - old.pterecibir };
  if (!change.cantidad && !change.reservada && !change.pterecibir) return;

  const row = { codalmacen, referencia, idproducto: product.idproducto, cantidad: 0, reservada: 0, pterecibir: 0, disponible: 0 };
  await dialect.insertIgnore(db.insertInto('stocks').values(row), ['codalmacen', 'referencia']).execute();
  await db.updateTable('stocks')
    .set({
      cantidad: round3(sql`cantidad + ${change.cantidad}`),
      reservada: round3(sql`reservada + ${change.reservada}`),
      pterecibir: round3(sql`pterecibir + ${change.pterecibir}`),
    })
    .where('codalmacen', '=', codalmacen).where('referencia', '=', referencia)
    .execute();
  if (to.mode === -1 && change.cantidad < 0 && !dbBoolean(product.ventasinstock)) {
    // The row is now locked by this transaction: the value read is the one this move produced.
    const stock = await db.selectFrom('stocks').select(['cantidad']).where('codalmacen', '=', codalmacen).where('referencia', '=', referencia).executeTakeFirstOrThrow();
    if (Number(stock.cantidad) < 0) throw new AppError('not-enough-stock', { line: move.line, referencia, codalmacen });
  }
  await settleStock(db, dialect, codalmacen, referencia, Number(product.idproducto));
}

/**
 * What follows a change of a stock row: its `disponible` (what is on hand and not reserved, never
 * below zero), and the `stockfis` of its variant and product (the sum over warehouses).
 */
export async function settleStock(db: DbExecutor, dialect: SqlDialect, codalmacen: string, referencia: string, idproducto: number): Promise<void> {
  await db.updateTable('stocks')
    .set({ disponible: round3(dialect.greatest(sql`0`, sql`cantidad - reservada`)) })
    .where('codalmacen', '=', codalmacen).where('referencia', '=', referencia).execute();
  await db.updateTable('variantes')
    .set({ stockfis: sql`(SELECT ${round3(sql`COALESCE(SUM(s.cantidad), 0)`)} FROM stocks s WHERE s.referencia = ${referencia})` })
    .where('referencia', '=', referencia).execute();
  await db.updateTable('productos')
    .set({ stockfis: sql`(SELECT ${round3(sql`COALESCE(SUM(s.cantidad), 0)`)} FROM stocks s WHERE s.idproducto = ${idproducto})` })
    .where('idproducto', '=', idproducto).execute();
}
