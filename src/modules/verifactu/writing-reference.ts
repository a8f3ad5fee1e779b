import type { AppContext } from '../../app-context.ts';
import { rowReader } from '../../db/row-codec.ts';
import { empresaModel } from '../company/index.ts';
import { paisModel } from '../geography/index.ts';
import { verifactuEmpresaModel } from './company-switch-model.ts';

type Row = Record<string, unknown>;

/** What a new invoice's record is prepared from, besides the invoice: kept per instance, changed rarely. */
export interface WritingReference {
  /** Each company's switch as stored (`modo` may be `off`). */
  switches: ReadonlyMap<number, { modo: string; entorno: string; numeroinstalacion: string }>;
  /** Companies' rows (the issuer). */
  companies: ReadonlyMap<number, Row>;
  /** Countries' rows by code (a recipient's). */
  countries: ReadonlyMap<string, Row>;
}

const CACHE = 'verifactu-writing';

export function declareWritingReference(ctx: AppContext): void {
  ctx.shared.cache<WritingReference>(CACHE, [verifactuEmpresaModel.resource, empresaModel.resource, paisModel.resource], async () => {
    const db = ctx.database.kysely;
    const [switches, companies, countries] = await Promise.all([
      db.selectFrom(verifactuEmpresaModel.table).select(['idempresa', 'modo', 'entorno', 'numeroinstalacion']).execute(),
      db.selectFrom(empresaModel.table).selectAll().execute(),
      db.selectFrom(paisModel.table).selectAll().execute(),
    ]);
    const company = rowReader(empresaModel);
    const country = rowReader(paisModel);
    return {
      switches: new Map(switches.map((row) => [Number(row.idempresa), { modo: String(row.modo), entorno: String(row.entorno), numeroinstalacion: String(row.numeroinstalacion) }])),
      companies: new Map(companies.map((row) => [Number(row.idempresa), company(row)])),
      countries: new Map(countries.map((row) => [String(row.codpais), country(row)])),
    };
  });
}

/**
 * The switches, companies and countries as this instance last read them (outside a transaction).
 * A switch turned on elsewhere a moment ago is still seen by the invoice's own read after its
 * locks (record-issued-invoices.ts): no invoice goes without its record.
 */
export function writingReference(ctx: AppContext): Promise<WritingReference> {
  return ctx.shared.named<WritingReference>(CACHE).read();
}
