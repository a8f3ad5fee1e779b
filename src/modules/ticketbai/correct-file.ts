import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { companyOf } from '../company/index.ts';
import { documentType, headerOf, linesOf, loadReference, type Row } from '../documents/index.ts';
import { issuerNif, RECORDED_TYPE, type XmlTree } from '../verifactu/index.ts';
import { altaContentOf } from './alta-content.ts';
import { elementOfFile } from './file-tree.ts';
import { registroTicketbaiModel, sendQueueModel } from './record-models.ts';
import { sendAfterCommit, sendCompany } from './sending/send-files.ts';
import type { Territorio } from './territories.ts';
import { fileXml } from './xml-file.ts';

/**
 * `zuzenduTicketBAI/{idregistro}` (Araba and Gipuzkoa's Zuzendu service): a file its treasury
 * refused is sent again as `SUBSANAR`, one it registered whose data must change as `MODIFICAR`,
 * with the invoice's data as they are now; a refused cancellation is sent again. The correction
 * keeps the original file's fingerprint (`HuellaTBAI`, its chaining included) and names the
 * original's signature; it is not signed (the Zuzendu schemas have no signature), and the
 * original's identifier, QR and chain stay. Bizkaia has no such service: a refused file there is
 * sent again as it is (`reenviarTicketBAI`).
 */
export async function correctFile(ctx: AppContext, idregistro: number): Promise<Row> {
  const type = documentType(RECORDED_TYPE);
  const ref = await loadReference(ctx);
  return inTransaction(ctx.database, async (db) => {
    const original = await db.selectFrom(registroTicketbaiModel.table).selectAll().where('id', '=', idregistro).executeTakeFirst();
    if (!original) throw new AppError('record-not-found');
    if (original.territorio === 'bizkaia') throw new AppError('record-not-correctable', { reason: 'no-zuzendu-in-bizkaia' });
    if (original.tipo !== 'alta' && original.tipo !== 'anulacion') throw new AppError('record-not-correctable', { reason: 'not-correctable' });
    if (original.estado !== 'rechazado' && original.estado !== 'aceptado') throw new AppError('record-not-correctable', { reason: 'not-answered-yet', estado: original.estado });
    if (original.tipo === 'anulacion' && original.estado !== 'rechazado') throw new AppError('record-not-correctable', { reason: 'not-refused', estado: original.estado });
    const pending = await db.selectFrom(registroTicketbaiModel.table).select('id').where('idcorregido', '=', idregistro).where('estado', 'in', ['pendiente', 'enviado']).executeTakeFirst();
    if (pending) throw new AppError('record-not-correctable', { reason: 'correction-pending', idregistro: pending.id });
    const fichero = String(original.fichero);
    const firma = String(original.firma).slice(0, 100);
    let kind: 'zuzendu-alta' | 'zuzendu-baja';
    let accion: string | null = null;
    let tree: XmlTree;
    if (original.tipo === 'alta') {
      kind = 'zuzendu-alta';
      accion = original.estado === 'rechazado' ? 'SUBSANAR' : 'MODIFICAR';
      const id = Number(original.idfactura);
      const header = (await headerOf(db, type, id))!;
      const company = await companyOf(db, Number(original.idempresa));
      const content = await altaContentOf(ctx, db, ref, type, header, await linesOf(db, type, id), company!, issuerNif(company), {});
      tree = { Cabecera: { IDVersion: '1.0', Accion: accion }, Sujetos: content.Sujetos, Factura: content.Factura, HuellaTBAI: elementOfFile(fichero, 'HuellaTBAI'), SignatureValueFirmaFactura: firma };
    } else {
      kind = 'zuzendu-baja';
      tree = { Cabecera: { IDVersion: '1.0' }, IDFactura: elementOfFile(fichero, 'IDFactura'), HuellaTBAI: elementOfFile(fichero, 'HuellaTBAI'), SignatureValueFirmaAnulacion: firma };
    }
    const [id] = await ctx.store.insertMany(registroTicketbaiModel, [{
      idempresa: original.idempresa, tipo: kind, idfactura: original.idfactura, territorio: original.territorio, entorno: original.entorno,
      nif: original.nif, serie: original.serie, numero: original.numero, fecha: original.fecha, importe: original.importe,
      idcorregido: idregistro, accion, fichero: fileXml(kind, tree), estado: 'pendiente',
    } as Values], db);
    sendAfterCommit(ctx, db, Number(original.idempresa), original.territorio as Territorio);
    return (await ctx.store.get(registroTicketbaiModel, id!, db))!;
  });
}

/**
 * `reenviarTicketBAI/{idregistro}`: a file refused (Bizkaia: sent again as it is, once what its
 * treasury said was put right, e.g. the taxpayer's enrolment) goes back to the sender's queue, and
 * the company's back-off is lifted; the sender starts at once. Answers the file, `pendiente`.
 */
export async function resendFile(ctx: AppContext, idregistro: number): Promise<Row> {
  const row = await inTransaction(ctx.database, async (db) => {
    const file = await db.selectFrom(registroTicketbaiModel.table).select(['id', 'idempresa', 'estado', 'territorio', 'tipo']).where('id', '=', idregistro).executeTakeFirst();
    if (!file) throw new AppError('record-not-found');
    if (file.estado === 'aceptado') throw new AppError('record-not-correctable', { reason: 'already-accepted' });
    if (file.estado === 'rechazado' && file.territorio !== 'bizkaia' && (file.tipo === 'alta' || file.tipo === 'anulacion')) throw new AppError('record-not-correctable', { reason: 'use-zuzendu' });
    await db.updateTable(registroTicketbaiModel.table).set({ estado: 'pendiente' }).where('id', '=', idregistro).execute();
    await db.updateTable(sendQueueModel.table).set({ siguiente: null, fallos: 0 }).where('idempresa', '=', Number(file.idempresa)).execute();
    return file;
  });
  // Sent by the company's sender, not within this request (which would wait on the treasury for every file waiting).
  void sendCompany(ctx, Number(row.idempresa)).catch((error: unknown) => ctx.log.warn({ err: error, idempresa: row.idempresa }, 'TicketBAI: resending failed; the sending job tries again'));
  return (await ctx.store.get(registroTicketbaiModel, idregistro))!;
}
