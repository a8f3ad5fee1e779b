import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dec, roundNumber } from '../../models/round.ts';
import { calculateDocument, storedTax, type TaxRule } from './calculation/calculate.ts';
import type { CalcLine, Calculation } from './calculation/types.ts';
import { calcContextFor, type DocumentReference } from './document-reference.ts';
import type { CalcContext } from './calculation/types.ts';
import { headerOf, linesOf, type Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import { subjectOf } from './subject.ts';
import { syncInvoiceReceipts } from './invoice-receipts.ts';
import { followSupplierPrices } from './supplier-prices.ts';

const TOTALS = ['irpf', 'neto', 'netosindto', 'totaliva', 'totalrecargo', 'totalirpf', 'totalsuplidos', 'total'] as const;

/** The `tipo` of the products the lines name (the Spain mod's margin schemes read it). */
export async function productTypesOf(db: DbExecutor, lines: Row[]): Promise<Map<number, string | null>> {
  const ids = [...new Set(lines.map((line) => line.idproducto).filter((value) => value !== null && value !== undefined))] as number[];
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('productos').select(['idproducto', 'tipo']).where('idproducto', 'in', ids).execute();
  return new Map(rows.map((p) => [Number(p.idproducto), (p.tipo as string | null) ?? null]));
}

/**
 * The calculation of a document from its header and lines as values (stored or about to be): pure.
 * `taxOf` defaults to the tax rules; a reader of a stored document passes `storedTax`.
 */
export function calculate(type: DocumentType, doc: Row, lines: Row[], context: CalcContext, productTypes: Map<number, string | null>, taxOf?: TaxRule): Calculation {
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
    productType: line.idproducto === null || line.idproducto === undefined ? null : (productTypes.get(Number(line.idproducto)) ?? null),
  }));
  return calculateDocument(
    { side: type.side, dtopor1: Number(doc.dtopor1 ?? 0), dtopor2: Number(doc.dtopor2 ?? 0), operacion: (doc.operacion as string | null) ?? null, codpais: (doc.codpais as string | null) ?? null, provincia: (doc.provincia as string | null) ?? null },
    input,
    context,
    taxOf,
  );
}

/** The header columns a calculation sets: totals, sales cost and profit, the total in euros. */
export function totalsOf(type: DocumentType, result: Calculation, tasaconv: unknown): Row {
  const totals: Row = Object.fromEntries(TOTALS.map((key) => [key, result.totals[key]]));
  if (type.side === 'sales') Object.assign(totals, { totalcoste: result.totals.totalcoste, totalbeneficio: result.totals.totalbeneficio });
  const rate = Number(tasaconv ?? 0);
  totals.totaleuros = rate ? roundNumber(dec(result.totals.total).div(dec(rate)), 5) : 0;
  return totals;
}

/**
 * Recomputes a stored document from its stored lines and writes back line amounts, taxes and
 * totals (and receipts and paid flags for invoices), in the caller's transaction, from the
 * reference snapshot the use case took before it began. Every change to a stored document's lines
 * or header ends here, so totals never disagree with the lines. `taxes`: the tax rules decide each
 * line's tax (`rules`), or the lines keep the taxes they carry (`stored`: a sealed document).
 * Answers the payments recorded and whether a line's amounts or taxes changed.
 */
export async function recalculate(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, id: unknown, taxes: 'rules' | 'stored' = 'rules'): Promise<Recalculated> {
  const doc = (await headerOf(db, type, id))!;
  const lines = await linesOf(db, type, id);
  const subject = (await subjectOf(db, type, String(doc[type.subject]))) ?? {};
  const result = calculate(type, doc, lines, await calcContextFor(db, ref, doc, subject), await productTypesOf(db, lines), taxes === 'stored' ? storedTax : undefined);
  let linesChanged = false;
  for (const [index, line] of lines.entries()) {
    const computed = result.lines[index]!;
    const changed = (Object.keys(computed) as Array<keyof typeof computed>).some((key) => line[key] !== computed[key]);
    if (changed) await db.updateTable(type.line.table).set({ ...computed }).where('idlinea', '=', line.idlinea as number).execute();
    linesChanged ||= changed;
  }
  const totals = totalsOf(type, result, doc.tasaconv);
  await db.updateTable(type.header.table).set(totals).where(type.key, '=', id as number).execute();
  await followSupplierPrices(db, ctx.database.dialect, ref.settings, type, doc, lines);
  if (!type.invoice) return { payments: 0, linesChanged };
  return { linesChanged, payments: await syncInvoiceReceipts({ db, dialect: ctx.database.dialect, type, invoice: { ...doc, ...totals }, decimals: ref.settings.decimals, today: ref.today, hooks: ctx.hooks }) };
}

/** What `recalculate` did: the payments it recorded, and whether a line's amounts or taxes changed. */
export interface Recalculated {
  payments: number;
  linesChanged: boolean;
}
