import type { DbExecutor } from '../../db/database.ts';
import { registroTicketbaiModel } from './record-models.ts';

export type FileRow = Record<string, unknown>;

const SUMMARY = ['id', 'idempresa', 'tipo', 'idfactura', 'identificador', 'qr', 'estado', 'territorio', 'entorno'] as const;

/** The files of these invoices (without the files themselves), by invoice, in the order they were made. */
export async function filesOfInvoices(db: DbExecutor, ids: number[]): Promise<Map<number, FileRow[]>> {
  const found = new Map<number, FileRow[]>();
  const wanted = [...new Set(ids.filter((id) => Number.isFinite(id)))];
  if (!wanted.length) return found;
  const rows = await db.selectFrom(registroTicketbaiModel.table).select([...SUMMARY]).where('idfactura', 'in', wanted).orderBy('id').execute();
  for (const row of rows) {
    const id = Number(row.idfactura);
    found.set(id, [...(found.get(id) ?? []), row]);
  }
  return found;
}

/** An invoice's files, every column, in the order they were made. */
export async function filesOfInvoice(db: DbExecutor, idfactura: number): Promise<FileRow[]> {
  return db.selectFrom(registroTicketbaiModel.table).selectAll().where('idfactura', '=', idfactura).orderBy('id').execute();
}

/** A cancellation the treasury has not refused: the invoice is cancelled. */
export const cancels = (row: FileRow) => row.tipo === 'anulacion' && row.estado !== 'rechazado';
