import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { registroVerifactuModel } from './record-models.ts';

const read = rowReader(registroVerifactuModel);

export type RecordRow = Record<string, unknown>;

/** The records of one invoice (its alta, then any anulación), in generation order, every column. */
export async function recordsOfInvoice(db: DbExecutor, idfactura: number): Promise<RecordRow[]> {
  const rows = await db.selectFrom(registroVerifactuModel.table).selectAll().where('idfactura', '=', idfactura).orderBy('id', 'asc').execute();
  return rows.map(read);
}

/** The records of many invoices, grouped by invoice (visible columns only). */
export async function recordsOfInvoices(db: DbExecutor, ids: number[]): Promise<Map<number, RecordRow[]>> {
  const found = new Map<number, RecordRow[]>();
  if (!ids.length) return found;
  const rows = await db.selectFrom(registroVerifactuModel.table).select(['id', 'idfactura', 'tipo', 'qr', 'modo']).where('idfactura', 'in', ids).orderBy('id', 'asc').execute();
  for (const row of rows) {
    const key = Number(row.idfactura);
    found.set(key, [...(found.get(key) ?? []), row]);
  }
  return found;
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
