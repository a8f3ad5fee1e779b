import type { AppContext } from '../../../app-context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { AppError, validationError } from '../../../errors.ts';
import { companyOf, companyReference } from '../../company/index.ts';
import { documentType, lockDocument } from '../../documents/index.ts';
import { appendRecord } from '../chain.ts';
import { storedSwitchOf } from '../company-switch.ts';
import type { RecordMode } from '../qr-url.ts';
import { subsanacionRecord, type AltaCorrections, type InvoiceId, type PreviousRejection } from '../record-content.ts';
import { registroVerifactuModel } from '../record-models.ts';
import { recordsOfInvoice } from '../record-reads.ts';
import { RECORDED_TYPE } from '../recorded-invoices.ts';
import { territoryOf } from '../registration-time.ts';
import { spanishTaxId } from '../../fiscal/index.ts';
import { xmlText, type XmlTree } from '../xml-tree.ts';

/** IDOtro types of a recipient (list L7): EU VAT number, passport, official id of the country, residence certificate, other. */
const ID_TYPES = new Set(['02', '03', '04', '05', '06']);

/** Reads the corrections a subsanación may carry; anything else in the body is refused by name. */
function correctionsOf(body: unknown): AltaCorrections {
  const input = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const fields: Record<string, string> = {};
  const corrections: AltaCorrections = {};
  for (const name of Object.keys(input)) {
    if (!['nombrerazonemisor', 'descripcionoperacion', 'destinatario'].includes(name)) fields[name] = 'not-correctable';
  }
  const text = (name: string, max: number): string | undefined => {
    const value = input[name];
    if (value === undefined) return undefined;
    const cleaned = typeof value === 'string' ? xmlText(value, max) : '';
    if (!cleaned) fields[name] = 'required';
    return cleaned;
  };
  corrections.NombreRazonEmisor = text('nombrerazonemisor', 120);
  corrections.DescripcionOperacion = text('descripcionoperacion', 500);
  const recipient = input.destinatario as Record<string, unknown> | undefined;
  if (recipient !== undefined) {
    const name = typeof recipient?.nombre === 'string' ? xmlText(recipient.nombre, 120) : '';
    if (!name) fields['destinatario.nombre'] = 'required';
    if (typeof recipient?.nif === 'string') {
      const nif = spanishTaxId(recipient.nif);
      if (!nif) fields['destinatario.nif'] = 'invalid-spanish-tax-id';
      corrections.Destinatarios = [{ NombreRazon: name, NIF: nif ?? '' }];
    } else {
      const country = String(recipient?.codpais ?? '').toUpperCase();
      const type = String(recipient?.idtype ?? '');
      const id = typeof recipient?.id === 'string' ? xmlText(recipient.id, 20) : '';
      if (!/^[A-Z]{2}$/.test(country) || country === 'ES') fields['destinatario.codpais'] = 'invalid-value';
      if (!ID_TYPES.has(type)) fields['destinatario.idtype'] = 'invalid-value';
      if (!id) fields['destinatario.id'] = 'required';
      corrections.Destinatarios = [{ NombreRazon: name, IDOtro: { CodigoPais: country, IDType: type, ID: id } }];
    }
  }
  if (Object.keys(fields).length) throw validationError(fields);
  return corrections;
}

/**
 * `subsanarRegistroVerifactu/{id}`: corrects an alta the AEAT rejected (`incorrecto`) or accepted
 * with errors (`aceptadoconerrores`) with a new alta of the same invoice (`Subsanacion=S`, and
 * `RechazoPrevio` `X` when the AEAT never held the invoice, `S` when it rejected a subsanación of an
 * accepted one), chained like any record and sent in turn. Only the data the AEAT may reject change
 * (the issuer's name, the description, the recipient); the invoice's identity, type and amounts are
 * those of the issued invoice, which no correction alters. Answers the new record.
 */
export async function correctRecord(ctx: AppContext, id: number, body: unknown): Promise<Record<string, unknown>> {
  const corrections = correctionsOf(body);
  const type = documentType(RECORDED_TYPE);
  const companies = await companyReference(ctx);
  return inTransaction(ctx.database, async (db) => {
    const target = await ctx.store.get(registroVerifactuModel, id, db, 'all');
    if (!target) throw new AppError('record-not-found');
    if (target.tipo !== 'alta' || target.modo !== 'verifactu') throw new AppError('record-not-correctable', { reason: 'not-a-verifactu-alta' });
    const idfactura = Number(target.idfactura);
    await lockDocument(db, ctx.database.dialect, type, idfactura);
    const records = await recordsOfInvoice(db, idfactura);
    const last = records[records.length - 1]!;
    if (Number(last.id) !== id) throw new AppError('record-not-correctable', { reason: 'superseded', idregistro: last.id });
    // Read again under the invoice's lock: the sender may have stored the AEAT's answer meanwhile.
    const estado = String(last.estado);
    if (estado !== 'incorrecto' && estado !== 'aceptadoconerrores') throw new AppError('record-not-correctable', { reason: 'not-rejected', estado });
    if (corrections.Destinatarios && !(target.registro as XmlTree).Destinatarios) throw validationError({ destinatario: 'invoice-without-recipient' });
    const held = records.some((record) => record.tipo === 'alta' && (record.estado === 'correcto' || record.estado === 'aceptadoconerrores'));
    const rejection: PreviousRejection = estado === 'incorrecto' ? (held ? 'S' : 'X') : undefined;

    const idempresa = Number(target.idempresa);
    const stored = (await storedSwitchOf(db, idempresa))!;
    const company = { ...stored, modo: 'verifactu' as RecordMode };
    const identity: InvoiceId = { IDEmisorFactura: String(target.nifemisor), NumSerieFactura: String(target.numserie), FechaExpedicionFactura: String(target.fechaexpedicion) };
    const registro = await appendRecord(ctx, db, company, {
      tipo: 'alta',
      idfactura,
      invoice: identity,
      alta: { tipofactura: String(target.tipofactura), cuotatotal: String(target.cuotatotal), importetotal: String(target.importetotal) },
      territory: territoryOf((await companyOf(db, idempresa)) ?? {}),
      severalTaxpayers: companies.companies.size > 1,
      idsubsanado: id,
      build: (previous, system, timestamp) => subsanacionRecord(target.registro as XmlTree, corrections, rejection, previous, system, timestamp),
    });
    return (await ctx.store.get(registroVerifactuModel, registro, db))!;
  });
}
