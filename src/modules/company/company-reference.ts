import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';

/** A document status as the engine applies it. */
export interface DocumentStatus {
  idestado: number;
  tipodoc: string;
  editable: boolean;
  activo: boolean;
  predeterminado: boolean;
  actualizastock: number;
  generadoc: string | null;
}

/** Companies, warehouses and document statuses: read on every document, changed rarely. */
export interface CompanyReference {
  companies: ReadonlyMap<number, { codpais: string | null; regimeniva: string | null; nombrecorto: string | null }>;
  /** The company of each warehouse. */
  warehouses: ReadonlyMap<string, { idempresa: number | null }>;
  /** Statuses per document type, by `idestado`. */
  statuses: readonly DocumentStatus[];
}

const CACHE = 'company';

export function declareCompanyReference(ctx: AppContext): void {
  ctx.shared.cache<CompanyReference>(CACHE, ['empresa', 'almacen', 'estadodocumento'], () => loadCompanyReference(ctx.database.kysely));
}

/** Companies, warehouses and statuses as `db` sees them (the cache's load; a transaction's own view). */
export async function loadCompanyReference(db: DbExecutor): Promise<CompanyReference> {
  const [companies, warehouses, statuses] = await Promise.all([
    db.selectFrom('empresas').select(['idempresa', 'codpais', 'regimeniva', 'nombrecorto']).execute(),
    db.selectFrom('almacenes').select(['codalmacen', 'idempresa']).execute(),
    db.selectFrom('estados_documentos').selectAll().orderBy('idestado', 'asc').execute(),
  ]);
  return {
    companies: new Map(companies.map((c) => [Number(c.idempresa), {
      codpais: (c.codpais as string | null) ?? null, regimeniva: (c.regimeniva as string | null) ?? null, nombrecorto: (c.nombrecorto as string | null) ?? null,
    }])),
    warehouses: new Map(warehouses.map((w) => [String(w.codalmacen), { idempresa: w.idempresa === null ? null : Number(w.idempresa) }])),
    statuses: statuses.map((s): DocumentStatus => ({
      idestado: Number(s.idestado),
      tipodoc: String(s.tipodoc),
      editable: dbBoolean(s.editable),
      activo: dbBoolean(s.activo),
      predeterminado: dbBoolean(s.predeterminado),
      actualizastock: Number(s.actualizastock ?? 0),
      generadoc: (s.generadoc as string | null) || null,
    })),
  };
}

/** The current companies, warehouses and statuses (outside a transaction). */
export function companyReference(ctx: AppContext): Promise<CompanyReference> {
  return ctx.shared.named<CompanyReference>(CACHE).read();
}
