import { shapedStatement } from '../../db/statement-shapes.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { dec, roundNumber } from '../../models/round.ts';

/** What a document line takes from the variant a client names (by reference or barcode) and its product. */
export interface LineProduct {
  idproducto: number;
  /** The variant's reference (a barcode names it too). */
  referencia: string;
  descripcion: string;
  excepcioniva: string | null;
  codimpuesto: string | null;
  coste: number;
  precio: number;
  /** The product's `tipo` (the Spain mod's margin schemes read it). */
  tipo: string | null;
  /** No stock control; may be sold without stock (the stock service reads them). */
  nostock: boolean;
  ventasinstock: boolean;
  /** Its family, and its own sales and purchases sub-accounts (the posting of an invoice reads them). */
  codfamilia: string | null;
  codsubcuentaven: string | null;
  codsubcuentacom: string | null;
}

/** The variants and products of the given references or barcodes, in one query, by the code asked for. */
export async function productsForLines(db: DbExecutor, codes: string[]): Promise<Map<string, LineProduct>> {
  const found = new Map<string, LineProduct>();
  if (!codes.length) return found;
  const n = codes.length;
  const { rows } = await db.executeQuery<Record<string, unknown>>(shapedStatement(db, `line-products:${n}`, codes, (value) => {
    const list = Array.from({ length: n }, (_, i) => value(i));
    return db.selectFrom('variantes as v').innerJoin('productos as p', 'p.idproducto', 'v.idproducto')
      .select(['v.referencia', 'v.codbarras', 'v.coste', 'v.precio', 'p.idproducto', 'p.descripcion', 'p.excepcioniva', 'p.codimpuesto', 'p.tipo',
        'p.nostock', 'p.ventasinstock', 'p.codfamilia', 'p.codsubcuentaven', 'p.codsubcuentacom'])
      .where((eb) => eb.or([eb('v.referencia', 'in', list), eb('v.codbarras', 'in', list)]));
  }));
  for (const row of rows) {
    const product: LineProduct = {
      idproducto: Number(row.idproducto),
      referencia: String(row.referencia),
      descripcion: (row.descripcion as string | null) ?? '',
      excepcioniva: (row.excepcioniva as string | null) ?? null,
      codimpuesto: (row.codimpuesto as string | null) || null,
      coste: Number(row.coste ?? 0),
      precio: Number(row.precio ?? 0),
      tipo: (row.tipo as string | null) ?? null,
      nostock: dbBoolean(row.nostock),
      ventasinstock: dbBoolean(row.ventasinstock),
      codfamilia: (row.codfamilia as string | null) || null,
      codsubcuentaven: (row.codsubcuentaven as string | null) || null,
      codsubcuentacom: (row.codsubcuentacom as string | null) || null,
    };
    // A reference wins over another variant's barcode (the reference's lookup order).
    if (row.codbarras && codes.includes(String(row.codbarras)) && !found.has(String(row.codbarras))) found.set(String(row.codbarras), product);
    if (codes.includes(product.referencia)) found.set(product.referencia, product);
  }
  return found;
}

/** A price rate (`tarifas`), applied by `applyRate`. */
export type Rate = Record<string, unknown>;

export async function rateOf(db: DbExecutor, codtarifa: string): Promise<Rate | undefined> {
  return db.selectFrom('tarifas').selectAll().where('codtarifa', '=', codtarifa).executeTakeFirst();
}

/** Price rate formula (Tarifa::apply, facturascripts-model.md 3.3). */
export function applyRate(rate: Rate, coste: number, precio: number): number {
  const x = Number(rate.valorx ?? 0);
  const y = Number(rate.valory ?? 0);
  let price = rate.aplicar === 'coste'
    ? dec(coste).plus(dec(coste).times(x).div(100)).plus(y)
    : dec(precio).minus(dec(precio).times(x).div(100)).minus(y);
  if (dbBoolean(rate.maxpvp) && price.greaterThan(precio)) price = dec(precio);
  if (dbBoolean(rate.mincoste) && price.lessThan(coste)) price = dec(coste);
  return roundNumber(price, 5);
}

/** A supplier's price for a reference (`productosprov`). */
export interface SupplierPrice {
  precio: number;
  dtopor: number;
  dtopor2: number;
}

/**
 * The supplier's prices for these references in a currency (or in any currency when it set none),
 * one query for all; positive prices only.
 */
export async function supplierPricesFor(db: DbExecutor, codproveedor: string, referencias: string[], coddivisa: string | null): Promise<Map<string, SupplierPrice>> {
  const prices = new Map<string, SupplierPrice>();
  if (!referencias.length) return prices;
  const rows = await db.selectFrom('productosprov').selectAll()
    .where('codproveedor', '=', codproveedor).where('referencia', 'in', referencias).where('precio', '>', 0)
    .orderBy('coddivisa', 'desc').execute();
  for (const row of rows) {
    const referencia = String(row.referencia);
    if (prices.has(referencia) || (row.coddivisa !== null && row.coddivisa !== coddivisa)) continue;
    prices.set(referencia, { precio: Number(row.precio), dtopor: Number(row.dtopor ?? 0), dtopor2: Number(row.dtopor2 ?? 0) });
  }
  return prices;
}
