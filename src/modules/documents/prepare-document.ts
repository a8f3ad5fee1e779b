import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { readTogether } from '../../db/read-together.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { conversionRateOf, rateFor } from '../finance/index.ts';
import { cachedExerciseCovering, exerciseReference, type CachedExercise } from '../fiscal/index.ts';
import { productsForLines, type LineProduct } from '../catalogue/index.ts';
import type { DocumentInput } from './document-input.ts';
import { buildLines, lineCodes, lineDefaults } from './document-lines.ts';
import { documentPreparing, type PartMaker } from './document-parts.ts';
import { calcContextFor, loadReference, statusOf, type DocumentReference } from './document-reference.ts';
import type { Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import { exerciseFor } from './fiscal-year.ts';
import { receiptsPart } from './receipts-part.ts';
import { calculate, productTypesOf, totalsOf } from './recalculate.ts';
import { riskPart } from './risk-part.ts';
import { stockPart } from './stock-part.ts';
import { subjectValues, subjectWithAddressOf } from './subject.ts';
import { supplierPricesPart } from './supplier-prices.ts';
import type { PreparedDocument } from './write-document.ts';

/** The company of a warehouse: from the cache, else (created a moment ago elsewhere) from the table. */
async function warehouseCompany(db: DbExecutor, ref: DocumentReference, codalmacen: string): Promise<number | null | undefined> {
  const cached = ref.company.warehouses.get(codalmacen);
  if (cached) return cached.idempresa;
  const row = await db.selectFrom('almacenes').select('idempresa').where('codalmacen', '=', codalmacen).executeTakeFirst();
  return row ? (row.idempresa === null ? null : Number(row.idempresa)) : undefined;
}

/** The conversion rate of a document's currency: from the cache, else from the table; 422 for an unknown one. */
export async function conversionRate(db: DbExecutor, ref: DocumentReference, type: DocumentType, coddivisa: string): Promise<number> {
  const cached = rateFor(ref.finance, coddivisa, type.side);
  if (cached !== undefined) return cached;
  const rate = await conversionRateOf(db, coddivisa, type.side);
  if (rate === undefined) throw validationError({ coddivisa: 'not-found' });
  return rate;
}

/**
 * The fiscal year of a company for a date: the cached one when open, else `exerciseFor` in a
 * transaction of its own (it creates a missing calendar year, as the reference does, and refuses a
 * closed one).
 */
export async function exerciseOfDate(ctx: AppContext, idempresa: number, fecha: string): Promise<CachedExercise> {
  const cached = cachedExerciseCovering(await exerciseReference(ctx), idempresa, fecha);
  if (cached?.estado === 'ABIERTO') return cached;
  if (cached) throw new AppError('exercise-closed', { fecha, codejercicio: cached.codejercicio });
  const codejercicio = await inTransaction(ctx.database, (trx) => exerciseFor(ctx, trx, idempresa, fecha));
  const created = (await exerciseReference(ctx)).find((year) => year.codejercicio === codejercicio);
  if (created) return created;
  return { codejercicio, estado: 'ABIERTO', idempresa, longsubcuenta: 10, fechainicio: `${fecha.slice(0, 4)}-01-01`, fechafin: `${fecha.slice(0, 4)}-12-31` };
}

/** What a new document adds to its customer's risk: an unpaid invoice's total, a pending delivery note's or order's. */
function riskOfNew(type: DocumentType, header: Row, paid: boolean): number {
  const counted = type.invoice ? !paid : (type.name === 'AlbaranCliente' || type.name === 'PedidoCliente') && Boolean(header.editable);
  return counted ? Number(header.total ?? 0) : 0;
}

/**
 * Prepares a new document (the `crear<Doc>` endpoints; generation and refunds build theirs the
 * same way) holding no lock: its customer or supplier with its address and its products read once
 * each, everything else from the caches, the header's defaults (settings, subject, warehouse),
 * the lines and totals computed, checked as the store checks a new record; then the parts of its
 * commit: the documents module's own (risk, stock, receipts, supplier prices) and those modules
 * answer at `documentPreparing` (posting, VERI*FACTU).
 */
export async function prepareDocument(ctx: AppContext, type: DocumentType, input: DocumentInput): Promise<PreparedDocument> {
  const { fecha, ...draft } = await draftOf(ctx, type, input);
  const exercise = await exerciseOfDate(ctx, Number(draft.header.idempresa), fecha);
  Object.assign(draft.header, { fecha, hora: input.hora ?? draft.ref.today.time, codejercicio: exercise.codejercicio });
  return prepareComputed(ctx, { ...draft, exercise, pagada: Boolean(input.pagada) });
}

/**
 * A new document's header and lines with their amounts, exactly as its creation would compute
 * them, reading only: no fiscal year is opened for its date and no module is asked to take part
 * (a preview: the recurring invoices' next ones).
 */
export async function previewDocument(ctx: AppContext, type: DocumentType, input: DocumentInput): Promise<{ doc: Row; lines: Row[] }> {
  const { fecha, ...draft } = await draftOf(ctx, type, input);
  const idempresa = Number(draft.header.idempresa);
  const known = cachedExerciseCovering(await exerciseReference(ctx), idempresa, fecha);
  Object.assign(draft.header, { fecha, hora: input.hora ?? draft.ref.today.time, codejercicio: known?.codejercicio ?? fecha.slice(0, 4) });
  const { header, lines } = await amountsOf(ctx, draft);
  return { doc: header as Row, lines: lines as Row[] };
}

/** Everything of a new document but its fiscal year and amounts: subject, defaults, lines with their products. */
async function draftOf(ctx: AppContext, type: DocumentType, input: DocumentInput): Promise<Omit<DocumentDraft, 'exercise' | 'pagada'> & { fecha: string }> {
  const ref = await loadReference(ctx);
  const { settings, today } = ref;
  const db = ctx.database.kysely;
  // The subject and the lines' products, read in one round trip.
  const [found, known] = await readTogether(ctx.database,
    (reader) => subjectWithAddressOf(reader, type, String(input.header[type.subject])),
    (reader) => productsForLines(reader, lineCodes(input.lines ?? [])));
  if (!found) throw new AppError(type.side === 'sales' ? 'customer-not-found' : 'supplier-not-found');
  const { subject, address } = found;
  const header: Values = { ...subjectValues(ref, type, subject, address), ...input.header };
  header.codserie ??= (subject.codserie as string | null) ?? settings.codserie;
  header.codalmacen ??= settings.codalmacen;
  const idempresa = await warehouseCompany(db, ref, String(header.codalmacen));
  if (idempresa === undefined) throw new AppError('warehouse-not-found');
  header.idempresa = idempresa ?? settings.idempresa;
  header.codpago ??= (subject.codpago as string | null) ?? settings.codpago;
  header.coddivisa ??= settings.coddivisa;
  header.tasaconv = await conversionRate(db, ref, type, String(header.coddivisa));
  const status = statusOf(ref, type, header.idestado);
  if (status.generadoc) throw validationError({ idestado: 'generates-document' });
  Object.assign(header, { idestado: status.idestado, editable: status.editable });

  const products = new Map<string, LineProduct>();
  const { lines, productTypes } = await buildLines(db, ref.taxes, type, input.lines ?? [], lineDefaults(settings, status.actualizastock, subject, header), undefined, products, known);
  return { type, ref, subject, header, lines, products, productTypes, fecha: input.fecha ?? today.date };
}

/**
 * The lines as they will be stored (defaults and the model's own rules) with their amounts, and
 * the header with its totals, checked as the store checks new records.
 */
async function amountsOf(ctx: AppContext, draft: Omit<DocumentDraft, 'exercise' | 'pagada'>) {
  const { type, ref, subject, header } = draft;
  const db = ctx.database.kysely;
  const lines = await Promise.all(draft.lines.map((line) => ctx.store.prepareNew(type.line, { ...line, [type.key]: 0 }, db)));
  const context = await calcContextFor(db, ref, header as Row, subject);
  // A line may name a product without a reference the draft resolved (an `idproducto` given alone,
  // a refund's line whose reference is gone): its type is then read, as the margin schemes need it.
  const known = lines.every((line) => line.idproducto === undefined || line.idproducto === null || draft.productTypes.has(Number(line.idproducto)));
  const productTypes = known ? new Map(draft.productTypes) : await productTypesOf(db, lines);
  const result = calculate(type, header as Row, lines, context, productTypes);
  Object.assign(header, totalsOf(type, result, header.tasaconv), type.invoice ? { pagada: false, vencida: false } : {});
  const stored = lines.map((line, index) => ({ ...line, ...result.lines[index] }));
  for (const line of stored) delete (line as Row)[type.key];
  return { header: await ctx.store.prepareNew(type.header, header, db), lines: stored, productTypes, calculation: result };
}

/** A new document's header and lines before their amounts, with what was read for them. */
export interface DocumentDraft {
  type: DocumentType;
  ref: DocumentReference;
  subject: Row;
  /** The header with its date, hour and exercise, but no number. */
  header: Values;
  lines: Values[];
  products: ReadonlyMap<string, LineProduct>;
  productTypes: ReadonlyMap<number, string | null>;
  exercise: CachedExercise;
  /** An invoice paid at once (`pagada` in the request, or a paid original of a refund). */
  pagada: boolean;
}

/**
 * The amounts of a draft, its lines and header checked as the store checks new records, and the
 * parts of its commit: the documents module's own and those the modules answer.
 */
export async function prepareComputed(ctx: AppContext, draft: DocumentDraft): Promise<PreparedDocument> {
  const { type, ref, subject, products, exercise } = draft;
  const { header: prepared, lines: stored, productTypes, calculation } = await amountsOf(ctx, draft);

  const makers: PartMaker[] = [];
  const paid = draft.pagada || Boolean(type.invoice && prepared.codpago && ref.finance.paymentMethods.get(String(prepared.codpago))?.pagado);
  if (type.side === 'sales') {
    const risk = riskPart({ codcliente: String(subject.codcliente), riesgomax: Number(subject.riesgomax ?? 0) }, riskOfNew(type, prepared, paid), Number(prepared.total ?? 0), ref.settings.decimals);
    if (risk) makers.push(risk);
  }
  const stock = stockPart(ctx.database.dialect, String(prepared.codalmacen), stored, products);
  if (stock) makers.push(stock);
  if (type.invoice) {
    const terms = prepared.codpago ? ref.finance.paymentMethods.get(String(prepared.codpago)) : undefined;
    makers.push(receiptsPart(terms, type.side === 'sales' ? ((subject.diaspago as string | null | undefined) ?? null) : undefined, draft.pagada));
  }
  const prices = supplierPricesPart(type, ref.settings);
  if (prices) makers.push(prices);
  // The stored breakdown of a document just calculated is that calculation: its lines store the
  // taxes it applied (what `storedBreakdown` sums them by) and its header the totals it summed.
  const breakdown = Promise.resolve(calculation);
  makers.push(...(await ctx.hooks.run(documentPreparing, { ctx, ref, type, header: prepared, lines: stored, subject, products, productTypes, exercise, breakdown: () => breakdown })));
  return { type, ref, subject, header: prepared, lines: stored, exercise, makers };
}
