import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean, rowReader } from '../../db/row-codec.ts';
import { calculateDocument } from './calculation/calculate.ts';
import { dec, roundNumber } from '../../models/round.ts';
import type { CalcContext, CalcLine, TaxInfo, TaxZone } from './calculation/types.ts';
import type { DocumentType } from './document-types.ts';
import type { Settings } from '../../settings.ts';
import { syncInvoiceReceipts } from './invoice-receipts.ts';

export type Row = Record<string, unknown>;

/** The stored lines of a document, typed, in their order of creation. */
export async function linesOf(db: DbExecutor, type: DocumentType, id: unknown): Promise<Row[]> {
  const read = rowReader(type.line);
  const rows = await db.selectFrom(type.line.table).selectAll().where(type.key, '=', id).orderBy('idlinea', 'asc').execute();
  return rows.map(read);
}

export async function headerOf(db: DbExecutor, type: DocumentType, id: unknown): Promise<Row | undefined> {
  const row = await db.selectFrom(type.header.table).selectAll().where(type.key, '=', id).executeTakeFirst();
  return row ? rowReader(type.header)(row) : undefined;
}

/** What the tax rules read besides the document: settings, serie, company, subject, taxes, zones. */
async function calcContext(db: DbExecutor, type: DocumentType, doc: Row, settings: Settings): Promise<CalcContext> {
  const [serie, company, subject, taxes, zones] = await Promise.all([
    db.selectFrom('series').select(['siniva', 'tipo']).where('codserie', '=', doc.codserie).executeTakeFirst(),
    db.selectFrom('empresas').select(['codpais', 'regimeniva']).where('idempresa', '=', doc.idempresa).executeTakeFirst(),
    db.selectFrom(type.subjectTable).select(['regimeniva', 'excepcioniva']).where(type.subject, '=', doc[type.subject]).executeTakeFirst(),
    db.selectFrom('impuestos').select(['codimpuesto', 'iva', 'recargo', 'tipo']).execute(),
    type.side === 'sales' ? db.selectFrom('impuestoszonas').selectAll().execute() : Promise.resolve([]),
  ]);
  // `codisopro` holds a province id as text (reference quirk): zones match on the province name.
  const provinceIds = zones.map((z) => Number(z.codisopro)).filter((id) => Number.isInteger(id) && id > 0);
  const provinces = new Map(
    provinceIds.length
      ? (await db.selectFrom('provincias').select(['idprovincia', 'provincia']).where('idprovincia', 'in', provinceIds).execute()).map((p) => [String(p.idprovincia), String(p.provincia)])
      : [],
  );
  return {
    decimals: settings.decimals,
    method: settings.taxcalculationmethod,
    serie: { siniva: dbBoolean(serie?.siniva), tipo: (serie?.tipo as string | null) ?? null },
    company: { codpais: (company?.codpais as string | null) ?? null, regimeniva: (company?.regimeniva as string | null) ?? null },
    subject: { regimeniva: (subject?.regimeniva as string | null) ?? null, excepcioniva: (subject?.excepcioniva as string | null) ?? null },
    taxes: new Map(taxes.map((t): [string, TaxInfo] => [String(t.codimpuesto), { codimpuesto: String(t.codimpuesto), iva: Number(t.iva), recargo: Number(t.recargo), tipo: Number(t.tipo ?? 1) }])),
    zones: (zones as Row[]).map((z): TaxZone => ({
      codimpuesto: String(z.codimpuesto),
      codimpuestosel: (z.codimpuestosel as string | null) ?? null,
      codpais: (z.codpais as string | null) ?? null,
      provincia: z.codisopro === null || z.codisopro === '' ? null : (provinces.get(String(z.codisopro)) ?? String(z.codisopro)),
      excepcioniva: (z.excepcioniva as string | null) ?? null,
      prioridad: Number(z.prioridad ?? 1),
    })),
  };
}

const TOTALS = ['irpf', 'neto', 'netosindto', 'totaliva', 'totalrecargo', 'totalirpf', 'totalsuplidos', 'total'] as const;

/**
 * Recomputes a document from its stored lines and writes back line amounts, taxes and totals
 * (and receipts and paid flags for invoices), in the caller's transaction, with the settings
 * snapshot the use case took before it began. This is the only place
 * totals are written, so totals can never disagree with the lines. Returns the payments recorded.
 */
export async function recalculate(ctx: AppContext, db: DbExecutor, type: DocumentType, id: unknown, settings: Settings): Promise<number> {
  const doc = (await headerOf(db, type, id))!;
  const lines = await linesOf(db, type, id);
  const context = await calcContext(db, type, doc, settings);
  const productIds = [...new Set(lines.map((line) => line.idproducto).filter((value) => value !== null))];
  const productTypes = new Map(
    productIds.length
      ? (await db.selectFrom('productos').select(['idproducto', 'tipo']).where('idproducto', 'in', productIds as number[]).execute()).map((p) => [Number(p.idproducto), p.tipo as string | null])
      : [],
  );
  const input: CalcLine[] = lines.map((line) => ({
    cantidad: Number(line.cantidad),
    pvpunitario: Number(line.pvpunitario),
    dtopor: Number(line.dtopor ?? 0),
    dtopor2: Number(line.dtopor2 ?? 0),
    codimpuesto: (line.codimpuesto as string | null) ?? null,
    iva: Number(line.iva ?? 0),
    recargo: Number(line.recargo ?? 0),
    irpf: Number(line.irpf ?? 0),
    suplido: Boolean(line.suplido),
    coste: Number(line.coste ?? 0),
    excepcioniva: (line.excepcioniva as string | null) ?? null,
    productType: line.idproducto === null ? null : (productTypes.get(Number(line.idproducto)) ?? null),
  }));
  const result = calculateDocument(
    { side: type.side, dtopor1: Number(doc.dtopor1 ?? 0), dtopor2: Number(doc.dtopor2 ?? 0), operacion: (doc.operacion as string | null) ?? null, codpais: (doc.codpais as string | null) ?? null, provincia: (doc.provincia as string | null) ?? null },
    input,
    context,
  );
  for (const [index, line] of lines.entries()) {
    const computed = result.lines[index]!;
    const changed = (Object.keys(computed) as Array<keyof typeof computed>).some((key) => line[key] !== computed[key]);
    if (changed) await db.updateTable(type.line.table).set({ ...computed }).where('idlinea', '=', line.idlinea).execute();
  }
  const totals: Row = Object.fromEntries(TOTALS.map((key) => [key, result.totals[key]]));
  if (type.side === 'sales') Object.assign(totals, { totalcoste: result.totals.totalcoste, totalbeneficio: result.totals.totalbeneficio });
  const tasaconv = Number(doc.tasaconv ?? 0);
  totals.totaleuros = tasaconv ? roundNumber(dec(result.totals.total).div(dec(tasaconv)), 5) : 0;
  await db.updateTable(type.header.table).set(totals).where(type.key, '=', id).execute();
  if (!type.invoice) return 0;
  return syncInvoiceReceipts({ db, dialect: ctx.database.dialect, type, invoice: { ...doc, ...totals }, decimals: context.decimals, today: ctx.clock.today() });
}
