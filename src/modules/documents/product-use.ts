import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { productModel, variantReferences, varianteModel } from '../catalogue/index.ts';
import { DOCUMENT_TYPES } from './document-types.ts';

const LINE_TABLES = DOCUMENT_TYPES.map((type) => sql.table(type.line.table));

/**
 * The reference (Producto::delete, Variante::delete): a product or variant whose reference appears
 * in any document line cannot be deleted; 409 `record-in-use` with `reason` `document-lines`.
 * Registered on the catalogue's deletes, which know nothing of documents.
 */
export function guardSoldProducts(ctx: AppContext): void {
  ctx.store.guardDelete([productModel.resource], async ({ db, existing }) =>
    refuseDeletingSold(db, await variantReferences(db, existing.idproducto as number)));
  ctx.store.guardDelete([varianteModel.resource], async ({ db, existing }) => refuseDeletingSold(db, [String(existing.referencia)]));
}

/** One statement for all the references and line tables. */
async function refuseDeletingSold(db: DbExecutor, referencias: string[]): Promise<void> {
  if (!referencias.length) return;
  const list = sql.join(referencias);
  const uses = LINE_TABLES.map((table) => sql`SELECT referencia FROM ${table} WHERE referencia IN (${list})`);
  const { rows } = await sql<{ referencia: string }>`${sql.join(uses, sql` UNION ALL `)} LIMIT 1`.execute(db);
  if (rows.length) throw new AppError('record-in-use', { reason: 'document-lines', referencia: rows[0]!.referencia });
}
