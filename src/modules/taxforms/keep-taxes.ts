import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { documentChanged, documentCreated, documentPreparing, linesOf, sameValue, storedBreakdown, type DocumentReference, type DocumentType, type Row, type TaxGroup } from '../documents/index.ts';
import { taxRows } from './invoice-taxes.ts';
import { openPeriodTaxRows } from './open-period-rows.ts';
import { invoiceTaxModel } from './tax-line-model.ts';
import { vatDate } from './vat-date.ts';

/**
 * Keeps every invoice's tax rows (tax-line-model.ts) with the invoice, in its transaction, on each
 * path that writes one (documents' hook points): a new invoice's rows go with its header in the
 * prepared commit (`documentPreparing`, after the header by its code, only while its VAT period is
 * open: open-period-rows.ts) or after its insert (`documentCreated`: generated invoices, refunds);
 * a changed invoice's rows are written again when what they are made of changed (`documentChanged`);
 * a deleted invoice's go with it (the foreign key). fill-tax-rows.ts fills those of invoices
 * written before the module existed.
 */

/** The column naming a row's invoice: the sales or the purchase invoice. */
export const taxRowColumn = (type: DocumentType): 'idfacturacli' | 'idfacturaprov' => (type.side === 'sales' ? 'idfacturacli' : 'idfacturaprov');

/**
 * The header fields an invoice's tax rows are made of, besides its lines: its totals (a line's
 * tax moved), conversion rate (rows are in euros), operation (self-assessment), discounts and
 * place (the calculation's inputs). A change of none of them, with the lines as they were, leaves
 * the rows as they are.
 */
const TAX_FIELDS = ['neto', 'totaliva', 'totalrecargo', 'total', 'tasaconv', 'coddivisa', 'operacion', 'dtopor1', 'dtopor2', 'codpais', 'provincia'];

function companyCountry(ref: DocumentReference, header: Row): string | null {
  return (ref.company.companies.get(Number(header.idempresa))?.codpais as string | null | undefined) ?? 'ESP';
}

/**
 * An invoice's rows as stored, from its tax groups. An invoice without tax (a zero total) keeps one
 * zero row: every invoice written has rows, so that those of invoices written before this module
 * are told apart (fill-tax-rows.ts), and so that a new invoice's guarded insert adds at least one.
 */
export function storedTaxRows(ctx: AppContext, ref: DocumentReference, type: DocumentType, header: Row, groups: readonly TaxGroup[]): Row[] {
  const rows = taxRows(type.side, header, groups, companyCountry(ref, header));
  return (rows.length ? rows : [{ codimpuesto: null, iva: 0, recargo: 0, base: 0, cuota: 0, cuotarecargo: 0, autoliquidada: false }])
    .map((row) => ({ ...row, autoliquidada: ctx.database.dialect.boolean(row.autoliquidada === true) }));
}

/** Writes an invoice's rows again from its stored lines, in the caller's transaction. */
export async function rewriteTaxRows(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, id: number, header: Row, lines: Row[]): Promise<void> {
  const subject = await db.selectFrom(type.subjectTable).selectAll().where(type.subject, '=', String(header[type.subject] ?? '')).executeTakeFirst();
  const { groups } = await storedBreakdown(db, ref, type, header, lines, subject ?? {});
  await db.deleteFrom(invoiceTaxModel.table).where(taxRowColumn(type), '=', id).execute();
  await db.insertInto(invoiceTaxModel.table).values(storedTaxRows(ctx, ref, type, header, groups).map((row) => ({ ...row, [taxRowColumn(type)]: id }))).execute();
}

export function keepTaxRows(ctx: AppContext): void {
  const { dialect } = ctx.database;
  ctx.hooks.on(documentPreparing, async ({ ref, type, header, breakdown }) => {
    if (!type.invoice) return undefined;
    const rows = storedTaxRows(ctx, ref, type, header, (await breakdown()).groups);
    return () => {
      let inserted: Promise<{ numAffectedRows?: bigint }> | undefined;
      return {
        // Committed with its batch, the insert fails in a locked period instead of inserting nothing: `finish` then never refuses.
        guarded: true,
        afterHeader(doc) {
          inserted = doc.batch.add(openPeriodTaxRows(doc.db, dialect, type, doc.header, rows, doc.commitsWithBatch));
        },
        async finish(doc) {
          // No row inserted: a settlement of the invoice's company locked its VAT period (period-lock.ts).
          if (inserted && Number((await inserted).numAffectedRows ?? 0) === 0) throw new AppError('period-locked', { fecha: vatDate(type.side, doc.header) });
        },
      };
    };
  });
  ctx.hooks.on(documentCreated, async ({ db, ref, type, id, header, lines }) => {
    if (type.invoice) await rewriteTaxRows(ctx, db, ref, type, id, header, lines);
  });
  ctx.hooks.on(documentChanged, async ({ db, ref, type, id, before, after, linesChanged }) => {
    if (!type.invoice || (!linesChanged && TAX_FIELDS.every((name) => sameValue(before[name], after[name])))) return;
    await rewriteTaxRows(ctx, db, ref, type, id, after, await linesOf(db, type, id));
  });
}
