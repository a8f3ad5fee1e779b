import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { inTransaction } from '../../db/transaction.ts';
import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';
import { DOCUMENT_TYPES, loadReference, storedBreakdowns, type DocumentReference, type DocumentType, type Row } from '../documents/index.ts';
import { storedTaxRows, taxRowColumn } from './keep-taxes.ts';
import { invoiceTaxModel } from './tax-line-model.ts';

/**
 * The companies whose every invoice has its tax rows (service bookkeeping): once a company's
 * invoices written before this module kept them have been filled, every later invoice keeps its
 * own in its transaction (keep-taxes.ts), so nothing is ever missing again and the forms no longer
 * look. Whatever writes invoices without their rows (an import of another installation's books)
 * removes its company's row here, or fills them itself.
 */
export const taxRowsFilledModel = defineModel({
  name: 'ImpuestosFacturasCompletos',
  table: 'facturas_impuestos_completos',
  internal: true,
  fields: {
    idempresa: f.integer({ primary: true, references: f.ref('empresas', 'idempresa', 'CASCADE') }),
  },
});

/** Invoices filled per transaction: each chunk is read in a few statements and written in one. */
const CHUNK = 200;

/** The companies each app knows to be complete: asked of the database once per process. */
const complete = new WeakMap<AppContext, Set<number>>();

/**
 * Makes sure every invoice of company `idempresa` has its tax rows before a form reads them: the
 * first time for a company, those missing (invoices older than the module) are written, then the
 * company is recorded as complete (`taxRowsFilledModel`); afterwards nothing is read at all.
 * Called outside any transaction. Answers how many invoices it filled.
 */
export async function fillTaxRowsOnce(ctx: AppContext, idempresa: number): Promise<number> {
  let known = complete.get(ctx);
  if (!known) complete.set(ctx, (known = new Set()));
  if (known.has(idempresa)) return 0;
  const db = ctx.database.kysely;
  const recorded = await db.selectFrom(taxRowsFilledModel.table).select('idempresa').where('idempresa', '=', idempresa).executeTakeFirst();
  let filled = 0;
  if (!recorded) {
    let ref: DocumentReference | undefined;
    for (const type of DOCUMENT_TYPES.filter((candidate) => candidate.invoice)) {
      const ids = (await withoutRows(db, type).where('f.idempresa', '=', idempresa).orderBy('f.idfactura').execute()).map((row) => Number(row.idfactura));
      for (let start = 0; start < ids.length; start += CHUNK) {
        ref ??= await loadReference(ctx);
        filled += await fillChunk(ctx, ref, type, ids.slice(start, start + CHUNK));
      }
    }
    await recordTaxRowsComplete(ctx, db, [idempresa]);
  }
  known.add(idempresa);
  return filled;
}

/** The invoices of a type that have no tax row. */
const withoutRows = (db: DbExecutor, type: DocumentType) => db.selectFrom(`${type.header.table} as f`).select('f.idfactura')
  .where((eb) => eb.not(eb.exists(eb.selectFrom(`${invoiceTaxModel.table} as t`).select('t.id').whereRef(`t.${taxRowColumn(type)}` as never, '=', 'f.idfactura' as never))));

/**
 * Fills the rows of some invoices in one transaction, under their locks, checked again there: two
 * forms asked at once, or a form and an edit, never write an invoice's rows twice.
 */
async function fillChunk(ctx: AppContext, ref: DocumentReference, type: DocumentType, ids: number[]): Promise<number> {
  const { dialect } = ctx.database;
  return inTransaction(ctx.database, async (trx) => {
    await dialect.locking(trx.selectFrom(type.header.table).select(type.key).where(type.key, 'in', ids).orderBy(type.key)).execute();
    return writeMissingTaxRows(ctx, trx, ref, type, ids);
  });
}

/**
 * Writes the tax rows of those of the invoices `ids` (of one type) that have none, in the caller's
 * transaction, from their stored lines: a few reads for them all and one insert. Answers how many
 * invoices it wrote. The caller keeps others from writing them meanwhile (their locks, or a
 * transaction no one else sees: an import).
 */
export async function writeMissingTaxRows(ctx: AppContext, trx: DbExecutor, ref: DocumentReference, type: DocumentType, ids: readonly number[]): Promise<number> {
  const still = (await withoutRows(trx, type).where('f.idfactura', 'in', [...ids]).execute()).map((row) => Number(row.idfactura));
  if (!still.length) return 0;
  const headers = (await trx.selectFrom(type.header.table).selectAll().where(type.key, 'in', still).execute()).map(rowReader(type.header));
  const breakdowns = await storedBreakdowns(trx, ref, type, headers);
  const rows: Row[] = [];
  for (const header of headers) {
    const id = Number(header[type.key]);
    for (const row of storedTaxRows(ctx, ref, type, header, breakdowns.get(id)!.groups)) rows.push({ ...row, [taxRowColumn(type)]: id });
  }
  await trx.insertInto(invoiceTaxModel.table).values(rows).execute();
  return headers.length;
}

/** Records companies as complete (`taxRowsFilledModel`), in the caller's transaction: no form fills their invoices' rows again. */
export async function recordTaxRowsComplete(ctx: AppContext, trx: DbExecutor, companies: readonly number[]): Promise<void> {
  if (!companies.length) return;
  await ctx.database.dialect.insertIgnore(trx.insertInto(taxRowsFilledModel.table).values(companies.map((idempresa) => ({ idempresa }))), ['idempresa']).execute();
}
