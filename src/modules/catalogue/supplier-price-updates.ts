import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { roundNumber } from '../../models/round.ts';

/** A supplier price's net (both discounts applied to `precio`), to 5 decimals (ProductoProveedor). */
export function supplierNet(precio: number, dtopor: number, dtopor2: number): number {
  return roundNumber(precio * (1 - dtopor / 100) * (1 - dtopor2 / 100), 5);
}

/** The net in euros: the net divided by the currency's purchase rate, to 5 decimals. */
export const netInEuros = (neto: number, rate: number): number => roundNumber(neto / (rate || 1), 5);

/** A bought reference and what the supplier charged for it. */
export interface BoughtPrice {
  referencia: string;
  idproducto: number;
  precio: number;
  dtopor: number;
  dtopor2: number;
}

/** What a purchase document says about a supplier's prices, as of its date (`stamp`, `YYYY-MM-DD HH:MM:SS`). */
export interface SupplierQuote {
  codproveedor: string;
  coddivisa: string;
  /** The document's conversion rate (the currency's purchase rate). */
  rate: number;
  stamp: string;
  prices: BoughtPrice[];
}

/**
 * Records a supplier's prices from a purchase document (PurchaseDocumentWorker,
 * facturascripts-model.md 3.13): each reference's row for (supplier, reference, currency) takes
 * `precio`, `dtopor`, `dtopor2` and the document's date unless it already holds a later one; a
 * reference without a row gets one (`refproveedor` = the reference). At most three statements
 * for the whole document; the last price of a reference in the document wins.
 */
export async function recordSupplierPrices(db: DbExecutor, dialect: SqlDialect, quote: SupplierQuote): Promise<void> {
  const prices = [...new Map(quote.prices.map((price) => [price.referencia, price])).values()];
  if (!prices.length) return;
  const rows = (references: string[]) => db.selectFrom('productosprov')
    .where('codproveedor', '=', quote.codproveedor).where('coddivisa', '=', quote.coddivisa).where('referencia', 'in', references);
  const known = new Set((await rows(prices.map((price) => price.referencia)).select('referencia').execute()).map((row) => String(row.referencia)));
  const amounts = prices.map((price) => {
    const neto = supplierNet(price.precio, price.dtopor, price.dtopor2);
    return { ...price, neto, netoeuros: netInEuros(neto, quote.rate) };
  });
  const existing = amounts.filter((price) => known.has(price.referencia));
  if (existing.length) {
    const column = (pick: (price: (typeof amounts)[number]) => number) =>
      sql`CASE referencia ${sql.join(existing.map((price) => sql`WHEN ${price.referencia} THEN CAST(${pick(price)} AS DECIMAL(20, 6))`), sql` `)} END`;
    await db.updateTable('productosprov')
      .set({
        precio: column((p) => p.precio), dtopor: column((p) => p.dtopor), dtopor2: column((p) => p.dtopor2),
        neto: column((p) => p.neto), netoeuros: column((p) => p.netoeuros), actualizado: quote.stamp,
      })
      .where('codproveedor', '=', quote.codproveedor).where('coddivisa', '=', quote.coddivisa)
      .where('referencia', 'in', existing.map((price) => price.referencia))
      .where((eb) => eb.or([eb('actualizado', 'is', null), eb('actualizado', '<=', quote.stamp)]))
      .execute();
  }
  const added = amounts.filter((price) => !known.has(price.referencia));
  if (!added.length) return;
  const values = added.map((price) => ({
    codproveedor: quote.codproveedor, coddivisa: quote.coddivisa, referencia: price.referencia, refproveedor: price.referencia,
    idproducto: price.idproducto, precio: price.precio, dtopor: price.dtopor, dtopor2: price.dtopor2,
    neto: price.neto, netoeuros: price.netoeuros, actualizado: quote.stamp, stock: 0,
  }));
  // A concurrent purchase from the same supplier may add the row first: its price stands.
  await dialect.insertIgnore(db.insertInto('productosprov').values(values), ['codproveedor', 'refproveedor', 'referencia', 'coddivisa']).execute();
}
