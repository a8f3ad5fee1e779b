import { insertRows } from '../../db/insert-shapes.ts';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import {
  DOCUMENT_TYPES, documentChanged, documentCreated, documentPreparing, headerOf, linesOf, loadReference, storedBreakdown, type DocumentReference, type DocumentType, type Row,
} from '../documents/index.ts';
import { invoiceTaxModel } from './tax-line-model.ts';
import { taxRows } from './invoice-taxes.ts';
import { vatDateSql } from './vat-date.ts';

/**
 * Keeps every invoice's tax rows (tax-line-model.ts) with the invoice, in its transaction, on each
 * path that writes one (documents' hook points): a new invoice's rows go with its header in the
 * prepared commit (`documentPreparing`, after the header by its code) or after its insert
 * (`documentCreated`: generated invoices, refunds); a changed invoice's rows are written again
 * (`documentChanged`); a deleted invoice's go with it (the foreign key). `backfillTaxRows` fills
 * those of invoices written before the module existed.
 */

const column = (type: DocumentType) => (type.side === 'sales' ? 'idfacturacli' : 'idfacturaprov');

function companyCountry(ref: DocumentReference, header: Row): string | null {
  return (ref.company.companies.get(Number(header.idempresa))?.codpais as string | null | undefined) ?? 'ESP';
}

async function subjectOf(db: DbExecutor, type: DocumentType, header: Row): Promise<Row> {
  const [table, key] = type.side === 'sales' ? ['clientes', 'codcliente'] : ['proveedores', 'codproveedor'];
  return (await db.selectFrom(table).selectAll().where(key, '=', String(header[key] ?? '')).executeTakeFirst()) ?? {};
}

/**
 * Rows as stored. An invoice without tax (a zero total) keeps one zero row: every invoice written
 * has rows, so that those of invoices written before this module are told apart (`fillMissingTaxRows`).
 */
const stored = (ctx: AppContext, rows: Row[], id: unknown, type: DocumentType) =>
  (rows.length ? rows : [{ codimpuesto: null, iva: 0, recargo: 0, base: 0, cuota: 0, cuotarecargo: 0, autoliquidada: false }])
    .map((row) => ({ ...row, autoliquidada: ctx.database.dialect.boolean(row.autoliquidada === true), [column(type)]: id }));

/** Writes an invoice's rows again from its stored lines, in the caller's transaction. */
export async function rewriteTaxRows(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, id: number, header: Row, lines: Row[]): Promise<void> {
  const { groups } = await storedBreakdown(db, ref, type, header, lines, await subjectOf(db, type, header));
  await db.deleteFrom(invoiceTaxModel.table).where(column(type), '=', id).execute();
  await db.insertInto(invoiceTaxModel.table).values(stored(ctx, taxRows(type.side, header, groups, companyCountry(ref, header)), id, type)).execute();
}

export function keepTaxRows(ctx: AppContext): void {
  ctx.hooks.on(documentPreparing, async ({ ref, type, header, breakdown }) => {
    if (!type.invoice) return undefined;
    const { groups } = await breakdown();
    const rows = taxRows(type.side, header, groups, companyCountry(ref, header));
    return () => ({
      afterHeader(doc) {
        doc.batch.add(insertRows(doc.db, invoiceTaxModel.table, stored(ctx, rows, doc.idReference, type)));
      },
    });
  });
  ctx.hooks.on(documentCreated, async ({ db, ref, type, id, header, lines }) => {
    if (type.invoice) await rewriteTaxRows(ctx, db, ref, type, id, header, lines);
  });
  ctx.hooks.on(documentChanged, async ({ db, ref, type, id, after }) => {
    if (type.invoice) await rewriteTaxRows(ctx, db, ref, type, id, after, await linesOf(db, type, id));
  });
}

/**
 * The tax rows of a period's invoices written before this module kept them, written now: one read
 * per side finds them (a period whose invoices all have rows costs two statements); each is then
 * written in its own transaction under its invoice's lock, checked again there, so that two
 * returns asked at once, or a return and an edit, never write an invoice's rows twice. Called
 * outside any transaction.
 */
export async function fillMissingTaxRows(ctx: AppContext, idempresa: number, desde: string, hasta: string): Promise<number> {
  const db = ctx.database.kysely;
  const { dialect } = ctx.database;
  let filled = 0;
  let ref: DocumentReference | undefined;
  for (const type of DOCUMENT_TYPES.filter((candidate) => candidate.invoice)) {
    const without = (executor: DbExecutor, ids?: number[]) => {
      let query = executor.selectFrom(`${type.header.table} as f`).select('f.idfactura')
        .where((eb) => eb.not(eb.exists(eb.selectFrom(`${invoiceTaxModel.table} as t`).select('t.id').whereRef(`t.${column(type)}` as never, '=', 'f.idfactura' as never))));
      // By the VAT day the return reads them by: a sale accrued in the period may be dated after it, a purchase received in it dated before.
      query = ids ? query.where('f.idfactura', 'in', ids) : query.where('f.idempresa', '=', idempresa).where(vatDateSql(type.side), '>=', desde).where(vatDateSql(type.side), '<=', hasta);
      return query.execute();
    };
    for (const { idfactura } of await without(db)) {
      ref ??= await loadReference(ctx);
      const reference = ref;
      const wrote = await inTransaction(ctx.database, async (trx) => {
        await dialect.locking(trx.selectFrom(type.header.table).select(type.key).where(type.key, '=', Number(idfactura))).execute();
        if (!(await without(trx, [Number(idfactura)])).length) return false;
        const header = await headerOf(trx, type, idfactura);
        if (!header) return false;
        await rewriteTaxRows(ctx, trx, reference, type, Number(idfactura), header, await linesOf(trx, type, idfactura));
        return true;
      });
      if (wrote) filled++;
    }
  }
  return filled;
}
