import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { registroVerifactuModel } from './record-models.ts';

const read = rowReader(registroVerifactuModel);

export type RecordRow = Record<string, unknown>;

/**
 * The records of these invoices (each one's alta, then any anulación), in generation order, grouped
 * by invoice: every column, or (`summary`, for lists) what shows an invoice's state and QR.
 */
export async function recordsOfInvoices(db: DbExecutor, ids: number[], columns: 'all' | 'summary' = 'summary'): Promise<Map<number, RecordRow[]>> {
  const found = new Map<number, RecordRow[]>();
  if (!ids.length) return found;
  const query = db.selectFrom(registroVerifactuModel.table).where('idfactura', 'in', ids).orderBy('id', 'asc');
  const rows = columns === 'all' ? (await query.selectAll().execute()).map(read) : await query.select(['id', 'idfactura', 'tipo', 'qr', 'modo']).execute();
  for (const row of rows) {
    const key = Number(row.idfactura);
    found.set(key, [...(found.get(key) ?? []), row]);
  }
  return found;
}

/** The records of one invoice, every column. */
export async function recordsOfInvoice(db: DbExecutor, idfactura: number): Promise<RecordRow[]> {
  return (await recordsOfInvoices(db, [idfactura], 'all')).get(idfactura) ?? [];
}

/** True when the invoice has a record (it is issued: sealed for good). */
export async function isRecorded(db: DbExecutor, idfactura: number): Promise<boolean> {
  const row = await db.selectFrom(registroVerifactuModel.table).select('id').where('idfactura', '=', idfactura).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** One page of a company's chain in generation order, after record `after` (every column). */
export async function chainPage(db: DbExecutor, idempresa: number, after: number, limit: number): Promise<RecordRow[]> {
  const rows = await db.selectFrom(registroVerifactuModel.table).selectAll().where('idempresa', '=', idempresa).where('id', '>', after).orderBy('id', 'asc').limit(limit).execute();
  return rows.map(read);
}
