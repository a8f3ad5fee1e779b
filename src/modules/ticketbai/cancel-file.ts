import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { documentIdOf, documentType, hasRefunds, headerOf, lockDocument, type Row } from '../documents/index.ts';
import { RECORDED_TYPE, signXml, type XmlTree } from '../verifactu/index.ts';
import { signerOf, switchOf } from './company-switch.ts';
import { cancels, filesOfInvoice } from './file-reads.ts';
import { elementOfFile } from './file-tree.ts';
import { TBAI_VERSION } from './issue-file.ts';
import { registroTicketbaiModel } from './record-models.ts';
import { sendAfterCommit } from './sending/send-files.ts';
import { softwareOf } from './software.ts';
import { TERRITORY, type Entorno, type Territorio } from './territories.ts';
import { fileXml, signatureValueOf } from './xml-file.ts';
import { validationError } from '../../errors.ts';

/**
 * `anularTicketBAI/{id or code}`: the invoice should never have been issued. Its cancellation file
 * (`AnulaTicketBai`, TicketBAI specification 1.2 §6.5) names it as its file did, is signed under
 * the same treasury's policy, is not chained, and is sent like any file; the invoice stays, shown
 * as cancelled, and its number is never reused. Refused for an invoice without a file, one
 * cancelled already, and one that credit notes correct (they would correct nothing).
 */
export async function cancelInvoiceFile(ctx: AppContext, idOrCode: string): Promise<{ doc: Row; registro: Row }> {
  const type = documentType(RECORDED_TYPE);
  const result = await inTransaction(ctx.database, async (db) => {
    const id = await documentIdOf(db, type, idOrCode);
    if (id === undefined || !(await lockDocument(db, ctx.database.dialect, type, id))) throw new AppError('record-not-found');
    const invoice = (await headerOf(db, type, id))!;
    const files = await filesOfInvoice(db, id);
    const alta = files.find((row) => row.tipo === 'alta');
    if (!alta) throw new AppError('invoice-not-recorded');
    const cancelled = files.find(cancels);
    if (cancelled) throw new AppError('invoice-already-cancelled', { idregistro: cancelled.id });
    if (await hasRefunds(db, type, id)) throw new AppError('document-has-children', { reason: 'refunds' });
    const idempresa = Number(alta.idempresa);
    const territorio = String(alta.territorio) as Territorio;
    const entorno = String(alta.entorno) as Entorno;
    const software = softwareOf(ctx.config.ticketbai, territorio, entorno);
    if (!software) throw validationError({ ticketbai: 'software-not-registered' });
    const emisor = elementOfFile(String(alta.fichero), 'Sujetos').Emisor as XmlTree;
    const tree: XmlTree = {
      Cabecera: { IDVersionTBAI: TBAI_VERSION },
      IDFactura: { Emisor: emisor, CabeceraFactura: { ...(alta.serie ? { SerieFactura: String(alta.serie) } : {}), NumFactura: String(alta.numero), FechaExpedicionFactura: String(alta.fecha) } },
      HuellaTBAI: { Software: software },
    };
    const signed = await signXml(fileXml('anulacion', tree), await signerOf(ctx, (await switchOf(db, idempresa))!), new Date(ctx.clock.now()), { policy: TERRITORY[territorio].policy });
    const [idregistro] = await ctx.store.insertMany(registroTicketbaiModel, [{
      idempresa, tipo: 'anulacion', idfactura: id, territorio, entorno, nif: alta.nif, serie: alta.serie, numero: alta.numero, fecha: alta.fecha,
      firma: signatureValueOf(signed), fichero: signed, estado: 'pendiente',
    } as Values], db);
    sendAfterCommit(ctx, db, idempresa, territorio);
    const doc = Object.fromEntries(type.header.visibleFields.map((name) => [name, invoice[name]]));
    return { doc, registro: (await ctx.store.get(registroTicketbaiModel, idregistro!, db))! };
  });
  return result;
}
