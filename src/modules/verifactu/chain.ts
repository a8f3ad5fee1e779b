import type { Values } from '../../models/define-model.ts';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { publish } from '../../event-log.ts';
import type { FiscalAnomalyEvent } from '../../events.ts';
import { systemInfo } from './producer.ts';
import { qrUrl, type RecordMode } from './qr-url.ts';
import type { CompanySwitch } from './company-switch.ts';
import { appendEvent } from './event-log/append-event.ts';
import { ANOMALY_TYPES, EVENT_TYPES, operationClosed, upToText } from './event-log/event-content.ts';
import { xmlText } from './xml-tree.ts';
import { hashFieldsOf, type ChainLink, type Generated, type InvoiceId } from './record-content.ts';
import { chainHeadModel, registroVerifactuModel } from './record-models.ts';
import { rowReader } from '../../db/row-codec.ts';
import { lockedHead } from './chain-head.ts';
import { huella } from './huella.ts';
import { instantOf, registrationTime, type Territory } from './registration-time.ts';
import type { XmlTree } from './xml-tree.ts';
import { recordXml } from './xml-document.ts';
import { trySign } from './signing/sign-record.ts';

/** A record to append: what it is about, and how to build it once its place in the chain is known. */
export interface PendingRecord {
  tipo: 'alta' | 'anulacion';
  idfactura: number;
  invoice: InvoiceId;
  /** An alta's type and totals, as written. */
  alta?: { tipofactura: string; cuotatotal: string; importetotal: string };
  territory: Territory;
  /** More than one taxpayer in this installation (IndicadorMultiplesOT). */
  severalTaxpayers: boolean;
  /** A subsanación: the alta it corrects. */
  idsubsanado?: number;
  build(previous: ChainLink | undefined, system: XmlTree, timestamp: string): Generated;
}

/** A record may be dated up to this far after now before its successor flags it (RD 1007/2023 art. 7.i). */
const CLOCK_TOLERANCE_MS = 60_000;

/**
 * An anomaly found while generating a record: logged, published (`verifactu.anomaly`), and in NO
 * VERI*FACTU mode written to the company's event log (event 04, RD 1007/2023 art. 7.i).
 */
async function alert(ctx: AppContext, db: DbExecutor, anomaly: FiscalAnomalyEvent, modo: RecordMode): Promise<void> {
  ctx.log.warn({ verifactu: anomaly }, 'VERI*FACTU anomaly');
  await publish(db, ctx, { type: 'verifactu.anomaly', payload: anomaly, resource: registroVerifactuModel.resource, key: anomaly.idregistro });
  if (modo === 'noverifactu') {
    await appendEvent(ctx, db, anomaly.idempresa, EVENT_TYPES.recordAnomaly, { DeteccionAnomaliasRegFacturacion: { TipoAnomalia: ANOMALY_TYPES[anomaly.check], OtrosDatosAnomalia: xmlText(anomaly.detail, 100) } });
  }
}

/**
 * Appends a record to its company's chain, in the caller's transaction: the chain's head is locked
 * (one generator per company at a time, whatever the instance), the previous record checked (its
 * date, and in NO VERI*FACTU mode its hash and link, art. 7.i: an anomaly alerts, it never stops
 * invoicing), the record built, dated and hashed, written, and the head moved on. Returns its id.
 */
export async function appendRecord(ctx: AppContext, db: DbExecutor, company: CompanySwitch, pending: PendingRecord): Promise<number> {
  const head = await lockedHead(db, ctx, company.idempresa);
  // The first record of a NO VERI*FACTU operation (ever, or since it last ended) opens it in the event log (event 01).
  if (company.modo === 'noverifactu' && operationClosed(head)) {
    await appendEvent(ctx, db, company.idempresa, EVENT_TYPES.start, undefined, upToText(Number(head.idultimo ?? 0)));
  }
  const next = await nextRecord(ctx, db, company, pending, head);
  const [id] = await ctx.store.insertMany(registroVerifactuModel, [next.record as Values], db);
  await db.updateTable(chainHeadModel.table).set(next.head(id!)).where('idempresa', '=', company.idempresa).execute();
  return id!;
}

/**
 * The record that follows the company's chain `head` (as read under its lock): the previous one
 * checked (its date; in NO VERI*FACTU mode its hash and link, and the record signed), dated,
 * built and hashed, as the row to insert, and the head's values once its id is known.
 */
export async function nextRecord(ctx: AppContext, db: DbExecutor, company: CompanySwitch, pending: PendingRecord, head: Record<string, unknown>): Promise<{ record: Record<string, unknown>; head: (id: number) => Record<string, unknown> }> {
  const previous: ChainLink | undefined = head.idultimo === null || head.idultimo === undefined ? undefined : {
    IDEmisorFactura: String(head.nifemisor), NumSerieFactura: String(head.numserie), FechaExpedicionFactura: String(head.fechaexpedicion), Huella: String(head.huella),
  };
  const now = ctx.clock.now();
  let instant = now;
  if (previous) {
    const before = instantOf(String(head.fechahorahuso));
    if (before > now + CLOCK_TOLERANCE_MS) {
      await alert(ctx, db, { idempresa: company.idempresa, check: 'time', idregistro: Number(head.idultimo), detail: `previous record dated ${head.fechahorahuso}, after now` }, company.modo);
    } else if (before > now) {
      // Another instance's clock a little ahead: records stay in date order.
      instant = before;
    }
    if (company.modo === 'noverifactu') await checkPrevious(ctx, db, company.idempresa, Number(head.idultimo), previous.Huella);
  }
  const timestamp = registrationTime(instant, pending.territory);
  const generated = pending.build(previous, systemInfo(company.numeroinstalacion, pending.severalTaxpayers), timestamp);
  const firmado = company.modo === 'noverifactu' ? await signed(ctx, db, company.idempresa, pending.tipo, generated.content, instant) : null;
  return {
    record: {
      idempresa: company.idempresa,
      tipo: pending.tipo,
      idfactura: pending.idfactura,
      nifemisor: pending.invoice.IDEmisorFactura,
      numserie: pending.invoice.NumSerieFactura,
      fechaexpedicion: pending.invoice.FechaExpedicionFactura,
      tipofactura: pending.alta?.tipofactura ?? null,
      cuotatotal: pending.alta?.cuotatotal ?? null,
      importetotal: pending.alta?.importetotal ?? null,
      fechahorahuso: timestamp,
      idanterior: previous ? Number(head.idultimo) : null,
      huellaanterior: previous?.Huella ?? null,
      huella: generated.huella,
      modo: company.modo,
      entorno: company.entorno,
      estado: 'pendiente',
      idsubsanado: pending.idsubsanado ?? null,
      qr: pending.alta ? qrUrl({ nif: pending.invoice.IDEmisorFactura, numserie: pending.invoice.NumSerieFactura, fecha: pending.invoice.FechaExpedicionFactura, importe: pending.alta.importetotal }, company) : null,
      registro: generated.content,
      firmado,
    },
    head: (id) => ({
      registros: Number(head.registros ?? 0) + 1,
      idultimo: id,
      nifemisor: pending.invoice.IDEmisorFactura,
      numserie: pending.invoice.NumSerieFactura,
      fechaexpedicion: pending.invoice.FechaExpedicionFactura,
      huella: generated.huella,
      fechahorahuso: timestamp,
    }),
  };
}

/**
 * NO VERI*FACTU: the record signed with the company's certificate. A record that cannot be signed
 * (no certificate, or one that no longer opens) is kept unsigned and alerted: invoicing never stops
 * for it (RD 1007/2023 art. 7), and the chain check counts it.
 */
async function signed(ctx: AppContext, db: DbExecutor, idempresa: number, tipo: 'alta' | 'anulacion', content: XmlTree, instant: number): Promise<string | null> {
  const outcome = await trySign(ctx, db, idempresa, recordXml({ tipo, content }), new Date(instant));
  if ('signed' in outcome) return outcome.signed;
  await alert(ctx, db, { idempresa, check: 'signature', idregistro: null, detail: `${outcome.unsigned}: the record is kept unsigned` }, 'noverifactu');
  return null;
}

const HASHED = ['tipo', 'huella', 'registro'];
const readRecord = rowReader(registroVerifactuModel, HASHED);

/** The previous record's own hash recomputed, and the head's copy of it compared. */
async function checkPrevious(ctx: AppContext, db: DbExecutor, idempresa: number, id: number, expected: string): Promise<void> {
  // What the hash is computed from, not the signed copy beside it.
  const record = await db.selectFrom(registroVerifactuModel.table).select(HASHED).where('id', '=', id).executeTakeFirst().then((row) => row && readRecord(row));
  const recomputed = record ? huella(hashFieldsOf(record.tipo as 'alta' | 'anulacion', record.registro as XmlTree)) : undefined;
  if (!record || recomputed !== record.huella || record.huella !== expected) {
    await alert(ctx, db, { idempresa, check: 'chain', idregistro: id, detail: record ? `stored ${String(record.huella)}, computed ${recomputed}, chained ${expected}` : 'previous record missing' }, 'noverifactu');
  }
}
