import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import type { Values } from '../../models/define-model.ts';
import { companyOf } from '../company/index.ts';
import { documentIdOf, documentType, headerOf, lockDocument, type Row } from '../documents/index.ts';
import { documentView, finishedFile, renderDocumentFile } from '../export/index.ts';
import { attachedFileContent, linkedFiles } from '../files/index.ts';
import { childText, RECORDED_TYPE } from '../verifactu/index.ts';
import { centresOf, requireFaceCentres } from './centres.ts';
import { callFace, faceRefusal } from './face-client.ts';
import { FINAL_STATES, registroFaceModel } from './face-models.ts';

/**
 * FACe's limits (§3.7): at most 5 attachments, PDFs, and a request of at most 8 MB; the files'
 * base64 is kept under 7.5 MB, leaving the envelope and its WS-Security room.
 */
const MAX_ATTACHMENTS = 5;
const MAX_CONTENT_BYTES = 7.5 * 1_048_576;
/** A send out for longer than this without an outcome (its sender died) holds the invoice no more. */
const staleAfter = (ctx: AppContext) => 2 * ctx.config.face.timeoutMs;

/**
 * `enviarFACe/{idfactura}`: the invoice's signed Facturae (its DIR3 centres in it) and its attached
 * PDFs (at most 5) submitted to FACe. Refused before anything leaves for an invoice to a customer
 * without its DIR3 centres (422 naming them), with an attached file FACe takes not, or one FACe
 * holds already (a send not rejected nor cancelled: 409 `face-already-sent`). The send is recorded (`enviando`) and
 * committed before the request leaves, so two sends of one invoice never both go; FACe's registry
 * number and state are stored once it answers, and its refusal comes back as 422/502.
 */
export async function sendToFace(ctx: AppContext, idOrCode: string): Promise<Row> {
  const type = documentType(RECORDED_TYPE);
  const db = ctx.database.kysely;
  const id = await documentIdOf(db, type, idOrCode);
  const header = id === undefined ? undefined : await headerOf(db, type, id);
  if (!header || id === undefined) throw new AppError('record-not-found');
  const centres = requireFaceCentres(await centresOf(db, String(header.codcliente), header.idcontactofact === null || header.idcontactofact === undefined ? null : Number(header.idcontactofact)));
  const view = (await documentView(ctx, type, id))!;
  const invoice = await finishedFile(ctx, type, view, 'FACTURAE', await renderDocumentFile(view, 'FACTURAE'), true);
  // The attached files checked by their records first (count, size), read only then: nothing large is read for a send that cannot go.
  const linked = await linkedFiles(db, type.name, id);
  if (linked.length > MAX_ATTACHMENTS) throw validationError({ anexos: 'too-many' });
  const budget = MAX_CONTENT_BYTES - invoice.content.length;
  if (linked.reduce((sum, file) => sum + Math.ceil(file.size / 3) * 4, 0) > budget) throw validationError({ anexos: 'too-large' });
  const anexos: Array<{ anexo: string; nombre: string; mime: string }> = [];
  for (const { idfile } of linked) {
    const file = await attachedFileContent(ctx, db, idfile, budget);
    if (!file) throw validationError({ anexos: 'missing-file' });
    if (file.contentType !== 'application/pdf') throw validationError({ anexos: 'only-pdf' });
    anexos.push({ anexo: file.content.toString('base64'), nombre: file.filename.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 70), mime: 'application/pdf' });
  }
  if (Math.ceil(invoice.content.length / 3) * 4 + anexos.reduce((sum, anexo) => sum + anexo.anexo.length, 0) > MAX_CONTENT_BYTES) throw validationError({ anexos: 'too-large' });

  const idempresa = Number(header.idempresa);
  // FACe notifies the supplier by e-mail: the company's address, required by its service (310).
  const company = await companyOf(db, idempresa);
  const correo = String(company?.email ?? '').trim();
  if (!correo) throw validationError({ email: 'required' });
  const idregistro = await inTransaction(ctx.database, async (trx) => {
    await lockDocument(trx, ctx.database.dialect, type, id);
    const live = await trx.selectFrom(registroFaceModel.table).select(['id', 'estado', 'tramitacion', 'fechaenvio']).where('idfactura', '=', id).where('estado', 'in', ['enviando', 'registrada']).execute();
    const stale = live.filter((row) => row.estado === 'enviando' && Date.parse(`${String(row.fechaenvio).replace(' ', 'T').slice(0, 19)}Z`) < ctx.clock.now() - staleAfter(ctx));
    if (stale.length) await trx.updateTable(registroFaceModel.table).set({ estado: 'sinrespuesta', error: 'no outcome recorded: its sender stopped' }).where('id', 'in', stale.map((row) => Number(row.id))).execute();
    const held = live.find((row) => !stale.includes(row) && (row.estado === 'enviando' || !FINAL_STATES.includes(String(row.tramitacion) as never) || row.tramitacion === '2500'));
    if (held) throw new AppError('face-already-sent', { idregistro: held.id });
    const [created] = await ctx.store.insertMany(registroFaceModel, [{
      idfactura: id, idempresa, estado: 'enviando', oficinacontable: centres.oficinacontable, organogestor: centres.organogestor, unidadtramitadora: centres.unidadtramitadora,
    } as Values], trx);
    return created!;
  });
  let answer;
  try {
    answer = await callFace(ctx, db, idempresa, 'enviarFactura', {
      request: {
        correo,
        factura: { factura: invoice.content.toString('base64'), nombre: invoice.filename, mime: 'application/xml' },
        anexos: anexos.length ? { anexo: anexos } : {},
      },
    });
  } catch (error) {
    const details = (error as AppError).details ?? {};
    await db.updateTable(registroFaceModel.table).set({ estado: details.sent ? 'sinrespuesta' : 'fallida', error: String(details.reason ?? (error as Error).message).slice(0, 1500) }).where('id', '=', idregistro).execute();
    throw error;
  }
  if (answer.codigo !== '0') {
    await db.updateTable(registroFaceModel.table).set({ estado: 'fallida', error: `${answer.codigo} ${answer.descripcion}`.slice(0, 1500), codigoseguimiento: answer.codigoSeguimiento?.slice(0, 100) ?? null }).where('id', '=', idregistro).execute();
    throw faceRefusal(answer);
  }
  const at = ctx.clock.timestamp();
  return inTransaction(ctx.database, async (trx) => {
    const numero = childText(answer.result, 'factura', 'numeroRegistro')?.slice(0, 60) || null;
    await trx.updateTable(registroFaceModel.table).set({
      estado: 'registrada', numeroregistro: numero, codigoseguimiento: answer.codigoSeguimiento?.slice(0, 100) ?? null, fecharegistro: childText(answer.result, 'factura', 'fechaRecepcion')?.slice(0, 30) ?? null,
      tramitacion: '1200', nombretramitacion: 'Registrada', anulacion: '4100', nombreanulacion: 'No solicitada anulación', ultimaconsulta: at,
      historial: JSON.stringify([{ fecha: at, tramitacion: '1200', anulacion: '4100', motivo: null }]),
    }).where('id', '=', idregistro).execute();
    await publish(trx, ctx, { type: 'face.state', payload: { idfactura: id, idregistro, numeroregistro: numero, tramitacion: '1200', anulacion: '4100', motivo: null }, resource: registroFaceModel.resource, key: idregistro });
    return (await ctx.store.get(registroFaceModel, idregistro, trx))!;
  });
}
