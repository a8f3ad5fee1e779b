import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import pLimit from 'p-limit';
import type { AppContext } from '../../../app-context.ts';
import { rowReader } from '../../../db/row-codec.ts';
import { inTransaction } from '../../../db/transaction.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { companyOf } from '../../company/index.ts';
import { certificateOf } from '../certificate.ts';
import type { Environment } from '../qr-url.ts';
import { instantOf } from '../registration-time.ts';
import { registroVerifactuModel } from '../record-models.ts';
import { xmlText } from '../xml-tree.ts';
import { suministroEnvelope, type MessageHeader } from '../xml-document.ts';
import { parseAnswer, type Answer } from './answer.ts';
import { endpointOf, type Service } from './endpoints.ts';
import { verifactuEnvioModel } from './send-models.ts';
import { postSoap, TransportError } from './soap-client.ts';
import { storeAnswer, type SentRecord } from './store-answer.ts';

/** Flow control (AEAT, web service v1.0.3): at most 1,000 records a message; 60 s before the first answer says how long to wait. */
export const MAX_RECORDS = 1000;
export const FIRST_WAIT_S = 60;
/** A failed message is retried after 1, 2, 4 ... minutes, never later than an hour (the rules: at least hourly). */
const BACKOFF_CAP_S = 3600;
/** Companies sent for at once by one instance (each its own connection to the AEAT). */
const PARALLEL_COMPANIES = 4;
const readRecord = rowReader(registroVerifactuModel);

export function backoffSeconds(failures: number): number {
  return Math.min(BACKOFF_CAP_S, 60 * 2 ** Math.max(0, failures - 1));
}

interface QueueRow {
  siguiente: number | null;
  fallos: number;
  incidenciahasta: number | null;
}

/**
 * The background job of VERI*FACTU mode: for each company with records waiting, when flow control
 * lets it (the last answer's `TiempoEsperaEnvio` has passed, or 1,000 records wait; 60 s after the
 * first record before any answer), one instance claims the company's sender and sends the next
 * message. docs/verifactu.md, "Sending".
 */
export async function sendDueRecords(ctx: AppContext): Promise<void> {
  const db = ctx.database.kysely;
  const waiting = await db.selectFrom('registros_verifactu')
    .select(['idempresa', sql<number>`count(*)`.as('pending'), sql<number>`min(id)`.as('first')])
    .where('estado', '=', 'pendiente').where('modo', '=', 'verifactu')
    .groupBy('idempresa').execute();
  const limit = pLimit(PARALLEL_COMPANIES);
  await Promise.all(waiting.map((row) => limit(async () => {
    try {
      await sendIfDue(ctx, Number(row.idempresa), Number(row.pending), Number(row.first));
    } catch (error) {
      ctx.log.error({ err: error, idempresa: row.idempresa }, 'VERI*FACTU sending failed');
    }
  })));
}

/** When the company's next message may leave, by flow control and back-off. */
async function dueAt(ctx: AppContext, queue: QueueRow, first: number): Promise<number> {
  if (queue.siguiente !== null && queue.siguiente !== undefined) return Number(queue.siguiente);
  const oldest = await ctx.database.kysely.selectFrom('registros_verifactu').select('fechahorahuso').where('id', '=', first).executeTakeFirstOrThrow();
  return instantOf(String(oldest.fechahorahuso)) + FIRST_WAIT_S * 1000;
}

/** A full message may go before the wait is over, but not while failures hold the company back. */
const isDue = (now: number, due: number, pending: number, queue: QueueRow) => now >= due || (pending >= MAX_RECORDS && Number(queue.fallos) === 0);

async function sendIfDue(ctx: AppContext, idempresa: number, pending: number, first: number): Promise<void> {
  const db = ctx.database.kysely;
  const { dialect } = ctx.database;
  const queueRow = () => db.selectFrom('verifactu_colas').selectAll().where('idempresa', '=', idempresa).executeTakeFirst() as Promise<QueueRow | undefined>;
  await dialect.insertIgnore(db.insertInto('verifactu_colas').values({ idempresa, fallos: 0 }), ['idempresa']).execute();
  const now = ctx.clock.now();
  const seen = (await queueRow())!;
  if (!isDue(now, await dueAt(ctx, seen, first), pending, seen)) return;
  const token = randomUUID();
  const claimed = await db.updateTable('verifactu_colas')
    .set({ titular: token, reservahasta: now + 2 * ctx.config.verifactu.timeoutMs })
    .where('idempresa', '=', idempresa)
    .where((eb) => eb.or([eb('titular', 'is', null), eb('reservahasta', '<', now)]))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return;
  try {
    // Read again under the claim: another instance may have sent and stored its answer (a new wait,
    // a failure) between the first read and the claim.
    const queue = (await queueRow())!;
    if (!isDue(now, await dueAt(ctx, queue, first), pending, queue)) return;
    await sendNext(ctx, idempresa, token, queue);
  } finally {
    await db.updateTable('verifactu_colas').set({ titular: null, reservahasta: null }).where('idempresa', '=', idempresa).where('titular', '=', token).execute();
  }
}

export interface Outgoing {
  idempresa: number;
  service: Service;
  header: MessageHeader;
  records: SentRecord[];
  tipo: 'remision' | 'requerimiento';
  refrequerimiento?: string;
}

/** The next (up to) 1,000 records of the company, in generation order, sent as one message. */
async function sendNext(ctx: AppContext, idempresa: number, token: string, queue: QueueRow): Promise<void> {
  const db = ctx.database.kysely;
  const rows = await db.selectFrom('registros_verifactu').selectAll()
    .where('idempresa', '=', idempresa).where('estado', '=', 'pendiente').where('modo', '=', 'verifactu')
    .orderBy('id').limit(MAX_RECORDS).execute();
  if (!rows.length) return;
  const records = rows.map((row) => readRecord(row) as unknown as SentRecord);
  const company = await companyOf(db, idempresa);
  const heldBack = queue.incidenciahasta === null || queue.incidenciahasta === undefined ? undefined : Number(queue.incidenciahasta);
  const incidencia = heldBack !== undefined && records[0]!.id <= heldBack;
  await deliver(ctx, {
    idempresa,
    service: 'VerifactuSOAP',
    tipo: 'remision',
    header: { taxpayer: { NombreRazon: xmlText(company?.nombre, 120), NIF: records[0]!.nifemisor }, incidencia },
    records,
  }, async (trx, outcome, now) => {
    const mine = trx.updateTable('verifactu_colas').where('idempresa', '=', idempresa).where('titular', '=', token);
    if (outcome.answer) {
      const wait = outcome.answer.TiempoEsperaEnvio;
      // Records held back by a failure are marked until the last of them has gone.
      const stillLate = heldBack !== undefined && records[records.length - 1]!.id < heldBack;
      await mine.set({ siguiente: now + wait * 1000, tiempoespera: wait, fallos: 0, ultimoerror: null, incidenciahasta: stillLate ? heldBack : null }).execute();
      return;
    }
    const failures = Number(queue.fallos) + 1;
    const last = await trx.selectFrom('registros_verifactu').select(sql<number>`max(id)`.as('last'))
      .where('idempresa', '=', idempresa).where('estado', '=', 'pendiente').where('modo', '=', 'verifactu').executeTakeFirst();
    await mine.set({
      siguiente: now + backoffSeconds(failures) * 1000, fallos: failures, ultimoerror: outcome.error!.slice(0, 1500),
      incidenciahasta: Math.max(heldBack ?? 0, Number(last?.last ?? 0)) || null,
    }).execute();
  });
}

/** What came of a message: the AEAT's answer, or why there is none. */
export interface Delivery {
  idenvio: number;
  answer?: Answer;
  error?: string;
}

/**
 * Sends one message and stores what comes of it: the message row is written before it leaves (so a
 * sender that dies meanwhile leaves a trace that its records may have arrived), then completed with
 * the answer (stored on the records at once) or the failure. Answers the AEAT's answer, or the error.
 */
export async function deliver(ctx: AppContext, message: Outgoing, settle: (db: DbExecutor, outcome: Delivery, now: number) => Promise<void>): Promise<Delivery> {
  const db = ctx.database.kysely;
  const { records } = message;
  const [idenvio] = await ctx.store.insertMany(verifactuEnvioModel, [{
    idempresa: message.idempresa, tipo: message.tipo, refrequerimiento: message.refrequerimiento ?? null, incidencia: Boolean(message.header.incidencia),
    registros: records.length, desde: records[0]!.id, hasta: records[records.length - 1]!.id, estado: 'enviando',
  }], db);
  let result: Answer | { kind: 'fault'; faultcode: string; faultstring: string };
  try {
    const certificate = await certificateOf(ctx, db, message.idempresa);
    if (!certificate) throw new TransportError('no certificate: set the company\'s (verifactuempresa.certificado) or VERIFACTU_CERT_FILE');
    const switchRow = await db.selectFrom('verifactu_empresas').select(['entorno', 'tipocertificado']).where('idempresa', '=', message.idempresa).executeTakeFirstOrThrow();
    const { caFile, timeoutMs } = ctx.config.verifactu;
    const answer = await postSoap({
      url: endpointOf(ctx.config.verifactu, switchRow.entorno as Environment, switchRow.tipocertificado === 'sello' ? 'sello' : 'personal', message.service),
      body: suministroEnvelope(message.header, records.map((record) => ({ tipo: record.tipo, content: record.registro, signed: record.firmado ?? undefined }))),
      certificate,
      extraCa: caFile ? await readFile(caFile, 'utf8') : undefined,
      timeoutMs,
    });
    result = parseAnswer(answer.status, answer.body);
  } catch (error) {
    result = { kind: 'fault', faultcode: 'transport', faultstring: (error as Error).message };
  }
  if (process.env.INVOICING_TEST_KILL_AFTER_SEND === '1') process.kill(process.pid, 'SIGKILL');
  const now = ctx.clock.now();
  const finished = ctx.clock.timestamp();
  const outcome: Delivery = result.kind === 'answer'
    ? { idenvio: idenvio!, answer: result }
    : { idenvio: idenvio!, error: result.faultcode === 'transport' ? result.faultstring : `${result.faultcode}: ${result.faultstring}` };
  await inTransaction(ctx.database, async (trx) => {
    if (outcome.answer) await storeAnswer(ctx, trx, message.idempresa, outcome.idenvio, records, outcome.answer, finished);
    else await trx.updateTable('verifactu_envios').set({ estado: 'fallido', error: outcome.error!.slice(0, 1500), fechafin: finished }).where('id', '=', outcome.idenvio).execute();
    await settle(trx, outcome, now);
  });
  if (outcome.error) ctx.log.warn({ idempresa: message.idempresa, idenvio: outcome.idenvio, error: outcome.error }, 'VERI*FACTU message not taken');
  return outcome;
}
