import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { Values } from '../../models/define-model.ts';
import { moveStock, type StockEffect } from '../catalogue/index.ts';
import { calcContextFor, type DocumentReference } from './document-reference.ts';
import { documentCreated } from './document-hooks.ts';
import type { Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import { exerciseFor } from './fiscal-year.ts';
import { syncInvoiceReceipts } from './invoice-receipts.ts';
import { assignNumber, checkInvoiceChronology, lockNumbering } from './numbering.ts';
import { calculate, productTypesOf, totalsOf } from './recalculate.ts';
import { followSupplierPrices } from './supplier-prices.ts';

export interface NewDocument {
  /** Header values: subject, serie, warehouse, currency, status ... (numbering fields are assigned here). */
  header: Values;
  /** Complete line values, without the link to the header. */
  lines: Values[];
  fecha: string;
  hora: string;
  /** The customer or supplier: its regime and exception drive the taxes, its payment days the receipts. */
  subject: Row;
  /** The `tipo` of the lines' products, when the caller knows them (spares reading them). */
  productTypes?: Map<number, string | null>;
}

/** A stored line's stock effect: mode (`actualizastock`), quantity and served quantity. */
export const effectOf = (line: Row): StockEffect => ({ mode: Number(line.actualizastock), cantidad: Number(line.cantidad), servido: Number(line.servido ?? 0) });

/**
 * Writes a new document in the caller's transaction: serie lock, fiscal year, number and code,
 * then the amounts, computed before anything is written, so that the header goes in with its
 * totals and the lines with theirs, in one statement; then the lines' stock, the
 * `documentCreated` hook point (document-hooks.ts) and an invoice's receipts. Shared by creation,
 * generation from a status and refunds. Returns the new id and the payments recorded (a receipt
 * born paid).
 */
export async function insertDocument(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, doc: NewDocument): Promise<{ id: number; payments: number }> {
  const { dialect } = ctx.database;
  const { header } = doc;
  const codejercicio = await exerciseFor(ctx, db, Number(header.idempresa), doc.fecha);
  await lockNumbering(db, dialect, type, { codserie: String(header.codserie), idempresa: Number(header.idempresa), codejercicio });
  const assigned = await assignNumber(db, dialect, type, { codserie: String(header.codserie), idempresa: Number(header.idempresa), codejercicio, fecha: doc.fecha, hora: doc.hora });
  Object.assign(header, { fecha: assigned.fecha ?? doc.fecha, hora: assigned.hora ?? doc.hora, codejercicio, numero: String(assigned.numero), codigo: assigned.codigo });
  await checkInvoiceChronology(db, dialect, type, { idempresa: Number(header.idempresa), codserie: String(header.codserie), codejercicio, numero: assigned.numero, fecha: String(header.fecha), highest: assigned.highest });

  // The lines as they will be stored (defaults and the model's own rules), then their amounts.
  const lines = await Promise.all(doc.lines.map((line) => ctx.store.prepareNew(type.line, { ...line, [type.key]: 0 }, db)));
  const context = await calcContextFor(db, ref, header as Row, doc.subject);
  const productTypes = doc.productTypes ?? (await productTypesOf(db, lines));
  const result = calculate(type, header as Row, lines, context, productTypes);
  Object.assign(header, totalsOf(type, result, header.tasaconv), type.invoice ? { pagada: false, vencida: false } : {});
  const { record } = await ctx.store.create(type.header, header, db);
  const id = Number(record[type.key]);
  const stored: Values[] = lines.map((line, index) => ({ ...line, ...result.lines[index], [type.key]: id }));
  await ctx.store.insertMany(type.line, stored, db, { prepared: true });
  const codalmacen = String(header.codalmacen);
  await moveStock(db, dialect, ...stored.map((line, index) => ({
    codalmacen, referencia: (line.referencia as string | null) ?? null, before: undefined, after: effectOf(line), line: `lineas[${index}]`,
  })));
  await followSupplierPrices(db, dialect, ref.settings, type, record, stored);
  // Announced before its receipts: what a receipt born paid causes (its payment, its entry) follows
  // what the document itself causes (its entry, its fiscal record), as in the reference.
  await ctx.hooks.run(documentCreated, { ctx, db, ref, type, id, header: record, lines: stored, productTypes });
  const payments = type.invoice
    ? await syncInvoiceReceipts({
      db, dialect, type, invoice: record, decimals: ref.settings.decimals, today: ref.today, hooks: ctx.hooks, fresh: true,
      terms: record.codpago ? ref.finance.paymentMethods.get(String(record.codpago)) : undefined,
      paymentDays: type.side === 'sales' ? ((doc.subject.diaspago as string | null | undefined) ?? null) : undefined,
    })
    : 0;
  return { id, payments };
}
