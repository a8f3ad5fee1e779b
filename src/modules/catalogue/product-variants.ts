import type { DbExecutor } from '../../db/database.ts';
import { AppError } from '../../errors.ts';

/**
 * The reference's product/variant rules: a product is sold through variants; its main variant
 * (same `referencia`) is created with it, and `referencia` and `precio` stay the same on both.
 * These run inside the write's transaction, as plain statements so the two sides do not recurse.
 */

export async function createMainVariant(db: DbExecutor, product: Record<string, unknown>): Promise<void> {
  await db
    .insertInto('variantes')
    .values({ idproducto: product.idproducto, referencia: product.referencia, precio: product.precio ?? 0, stockfis: product.stockfis ?? 0, coste: 0, margen: 0 })
    .execute();
}

/**
 * After one side changed (`before` -> `after`), carries `referencia`/`precio` to the other side's
 * row of the same product that still has the old reference: product -> main variant, or main
 * variant -> product. A variant other than the main one matches no product row and changes nothing.
 */
async function carryOver(db: DbExecutor, table: 'productos' | 'variantes', before: Record<string, unknown> | undefined, after: Record<string, unknown>): Promise<void> {
  if (!before || (before.referencia === after.referencia && before.precio === after.precio)) return;
  await db
    .updateTable(table)
    .set({ referencia: after.referencia, precio: after.precio })
    .where('idproducto', '=', after.idproducto)
    .where('referencia', '=', before.referencia)
    .execute();
}

export const syncMainVariant = (db: DbExecutor, before: Record<string, unknown>, after: Record<string, unknown>) =>
  carryOver(db, 'variantes', before, after);

export const syncProduct = (db: DbExecutor, before: Record<string, unknown> | undefined, after: Record<string, unknown>) =>
  carryOver(db, 'productos', before, after);

/** The main variant goes with its product, never alone. */
export async function refuseMainVariantDelete(db: DbExecutor, variant: Record<string, unknown>): Promise<void> {
  const product = await db.selectFrom('productos').select('referencia').where('idproducto', '=', variant.idproducto).executeTakeFirst();
  if (product && product.referencia === variant.referencia) throw new AppError('record-in-use', { reason: 'main-variant' });
}

/** The references of a product's variants (its main one included). */
export async function variantReferences(db: DbExecutor, idproducto: number): Promise<string[]> {
  const rows = await db.selectFrom('variantes').select('referencia').where('idproducto', '=', idproducto).execute();
  return rows.map((row) => String(row.referencia));
}
