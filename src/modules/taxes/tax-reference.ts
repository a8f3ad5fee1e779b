import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { provinceNames } from '../geography/index.ts';

/** A tax as the calculation reads it: `tipo` 1 is a percentage, 2 a fixed amount per unit. */
export interface TaxRate {
  codimpuesto: string;
  iva: number;
  recargo: number;
  tipo: number;
  /** The tax's kind (`ES_01` VAT, `ES_03` IGIC, `ES_04` IPSI ...), when known. */
  operacion?: string | null;
}

/** A tax zone rule: where (country, province) and for whom (exception) a tax becomes another. */
export interface TaxZoneRule {
  codimpuesto: string;
  codimpuestosel: string | null;
  codpais: string | null;
  /** The province's name (the table keeps its id as text, a reference quirk). */
  provincia: string | null;
  excepcioniva: string | null;
  prioridad: number;
}

/** Taxes, zones and retentions: read on every document, changed rarely; cached per instance. */
export interface TaxReference {
  taxes: ReadonlyMap<string, TaxRate>;
  zones: readonly TaxZoneRule[];
  /** Retention percentage by `codretencion`. */
  retentions: ReadonlyMap<string, number>;
}

export const TAX_CACHE = 'taxes';

/** Declares the cache (the taxes module's setup); writes to taxes, zones or retentions reload it. */
export function declareTaxReference(ctx: AppContext): void {
  // Provinces too: a zone names its province by id and the cache keeps the name.
  ctx.shared.cache<TaxReference>(TAX_CACHE, ['impuesto', 'impuestozona', 'retencion', 'provincia'], () => loadTaxReference(ctx.database.kysely));
}

/** Taxes, zones and retentions as `db` sees them (the cache's load; a transaction's own view, an import's). */
export async function loadTaxReference(db: DbExecutor): Promise<TaxReference> {
  const [taxes, zones, retentions] = await Promise.all([
    db.selectFrom('impuestos').select(['codimpuesto', 'iva', 'recargo', 'tipo', 'operacion']).execute(),
    db.selectFrom('impuestoszonas').selectAll().execute(),
    db.selectFrom('retenciones').select(['codretencion', 'porcentaje']).execute(),
  ]);
  const provinces = await provinceNames(db, zones.map((z) => Number(z.codisopro)).filter((id) => Number.isInteger(id) && id > 0));
  return {
    taxes: new Map(taxes.map((t): [string, TaxRate] => [String(t.codimpuesto), { codimpuesto: String(t.codimpuesto), iva: Number(t.iva), recargo: Number(t.recargo), tipo: Number(t.tipo ?? 1), operacion: (t.operacion as string | null) || null }])),
    zones: zones.map((z): TaxZoneRule => ({
      codimpuesto: String(z.codimpuesto),
      codimpuestosel: (z.codimpuestosel as string | null) ?? null,
      codpais: (z.codpais as string | null) ?? null,
      provincia: z.codisopro === null || z.codisopro === '' ? null : (provinces.get(Number(z.codisopro)) ?? String(z.codisopro)),
      excepcioniva: (z.excepcioniva as string | null) ?? null,
      prioridad: Number(z.prioridad ?? 1),
    })),
    retentions: new Map(retentions.map((r) => [String(r.codretencion), Number(r.porcentaje)])),
  };
}

/** The current taxes, zones and retentions (outside a transaction; take it before one begins). */
export function taxReference(ctx: AppContext): Promise<TaxReference> {
  return ctx.shared.named<TaxReference>(TAX_CACHE).read();
}
