import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pLimit from 'p-limit';
import type { AppContext } from '../../../app-context.ts';
import { rowReader } from '../../../db/row-codec.ts';
import { inTransaction } from '../../../db/transaction.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { companyOf } from '../../company/index.ts';
import { certificateOf } from '../certificate.ts';
import type { Environment } from '../qr-url.ts';
import { generatedIn } from '../period.ts';
import { instantOf } from '../registration-time.ts';
import { registroVerifactuModel } from '../record-models.ts';
import { xmlText } from '../xml-tree.ts';
import { suministroEnvelope, type MessageHeader } from '../xml-document.ts';
import { parseAnswer, type Answer } from './answer.ts';
import { endpointOf, type Service } from './endpoints.ts';
import { verifactuEnvioModel } from './send-models.ts';
import { postSoap, trustedAuthority } from './soap-client.ts';
import { storeAnswer, type SentRecord } from './store-answer.ts';

/** Flow control (AEAT, web service v1.0.3): at most 1,000 records a message; 60 s before the first answer says how long to wait. */
const MAX_RECORDS = 1000;
const FIRST_WAIT_S = 60;
/** A failed message is retried after 1, 2, 4 ... minutes, never later than an hour (the rules: at least hourly). */
const BACKOFF_CAP_S = 3600;
/** Companies sent for at once by one instance (each its own connection to the AEAT). */
const PARALLEL_COMPANIES = 4;
const readRecord = rowReader(registroVerifactuModel);

/** The records waiting to be sent (VERI*FACTU mode, not yet answered for), of one company or of all. */
function queued(db: DbExecutor, idempresa?: number) {
  const waiting = db.selectFrom('registros_verifactu').where('estado', '=', 'pendiente').where('modo', '=', 'verifactu');
  return idempresa === undefined ? waiting : waiting.where('idempresa', '=', idempresa);
}

export function backoffSeconds(failures: number): number {
  return Math.min(BACKOFF_CAP_S, 60 * 2 ** Math.max(0, failures - 1));
}

interface QueueRow {
  siguiente: number | null;
  fallos: number;
  incidenciahasta: number | null;
}

/**
 * The background job of sending: for each company with records waiting (VERI*FACTU mode) or a
 * request of the AEAT to answer (NO VERI*FACTU), when flow control lets it (the last answer's
 * `TiempoEsperaEnvio` has passed, or 1,000 records wait; 60 s after the first thing waiting before
 * any answer), one instance claims the company's sender and sends the next message.
 * docs/verifactu.md, "Sending".
 */
export async function sendDueRecords(ctx: AppContext): Promise<void> {
  const db = ctx.database.kysely;
  // `since` is read only for a company that has had no answer yet (the first message's 60 s run from it).
  const waiting = new Map<number, { pending: number; since: () => Promise<number> }>();
  const records = await queued(db).select(['idempresa', sql<number>`count(*)`.as('pending'), sql<number>`min(id)`.as('first')]).groupBy('idempresa').execute();
  for (const row of records) {
    const since = async () => instantOf(String((await db.selectFrom('registros_verifactu').select('fechahorahuso').where('id', '=', Number(row.first)).executeTakeFirstOrThrow()).fechahorahuso));
    waiting.set(Number(row.idempresa), { pending: Number(row.pending), since });
  }
  const requests = await db.selectFrom('verifactu_requerimientos').select(['idempresa', sql<string>`min(fecha)`.as('fecha')])
    .where('estado', '=', 'pendiente').groupBy('idempresa').execute();
  for (const row of requests) {
    const since = Date.parse(`${String(row.fecha).replace(' ', 'T').slice(0, 19)}Z`);
    if (!waiting.has(Number(row.idempresa))) waiting.set(Number(row.idempresa), { pending: 0, since: async () => since });
  }
  const limit = pLimit(PARALLEL_COMPANIES);
  await Promise.all([...waiting].map(([idempresa, { pending, since }]) => limit(async () => {
    try {
      await sendIfDue(ctx, idempresa, pending, since);
    } catch (error) {
      ctx.log.error({ err: error, idempresa }, 'VERI*FACTU sending failed');
    }
  })));
}

/** When the company's next message may leave: the last answer's wait or back-off, else 60 s after the first thing waiting. */
const dueAt = async (queue: QueueRow, since: () => Promise<number>) => (queue.siguiente !== null && queue.siguiente !== undefined ? Number(queue.siguiente) : (await since()) + FIRST_WAIT_S * 1000);

/** A full message may go before the wait is over, but not while failures hold the company back. */
const isDue = (now: number, due: number, pending: number, queue: QueueRow) => now >= due || (pending >= MAX_RECORDS && Number(queue.fallos) === 0);

async function sendIfDue(ctx: AppContext, idempresa: number, pending: number, since: () => Promise<number>): Promise<void> {
  const db = ctx.database.kysely;
  const { dialect } = ctx.database;
  const queueRow = () => db.selectFrom('verifactu_colas').selectAll().where('idempresa', '=', idempresa).executeTakeFirst() as Promise<QueueRow | undefined>;
  let seen = await queueRow();
  if (!seen) {
    await dialect.insertIgnore(db.insertInto('verifactu_colas').values({ idempresa, fallos: 0 }), ['idempresa']).execute();
    seen = (await queueRow())!;
  }
  const now = ctx.clock.now();
  if (!isDue(now, await dueAt(seen, since), pending, seen)) return;
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
    const waitingNow = await queued(db, idempresa).select(sql<number>`count(*)`.as('n')).executeTakeFirst();
    if (!isDue(now, await dueAt(queue, since), Number(waitingNow?.n ?? 0), queue)) return;
    await sendNext(ctx, idempresa, token, queue);
  } finally {
    await db.updateTable('verifactu_colas').set({ titular: null, reservahasta: null }).where('idempresa', '=', idempresa).where('titular', '=', token).execute();
  }
}

interface Outgoing {
  idempresa: number;
  header: MessageHeader;
  records: SentRecord[];
  /** `remision` goes to VerifactuSOAP; `requerimiento` (an answer to the AEAT's request) to RequerimientoSOAP. */
  tipo: 'remision' | 'requerimiento';
}

const SERVICES: Record<Outgoing['tipo'], Service> = { remision: 'VerifactuSOAP', requerimiento: 'RequerimientoSOAP' };

/** The company's flow control moved on by an answer (its wait) or a failure (back-off, records marked late). */
async function settleQueue(trx: DbExecutor, idempresa: number, token: string, queue: QueueRow, outcome: Delivery, now: number, lastSent: number): Promise<void> {
  const mine = trx.updateTable('verifactu_colas').where('idempresa', '=', idempresa).where('titular', '=', token);
  const heldBack = queue.incidenciahasta === null || queue.incidenciahasta === undefined ? undefined : Number(queue.incidenciahasta);
  if (outcome.answer) {
    const wait = outcome.answer.TiempoEsperaEnvio;
    // Records held back by a failure are marked until the last of them has gone.
    const stillLate = heldBack !== undefined && lastSent < heldBack;
    await mine.set({ siguiente: now + wait * 1000, tiempoespera: wait, fallos: 0, ultimoerror: null, incidenciahasta: stillLate ? heldBack : null }).execute();
    return;
  }
  const failures = Number(queue.fallos) + 1;
  const last = await queued(trx, idempresa).select(sql<number>`max(id)`.as('last')).executeTakeFirst();
  await mine.set({
    siguiente: now + backoffSeconds(failures) * 1000, fallos: failures, ultimoerror: outcome.error!.slice(0, 1500),
    incidenciahasta: Math.max(heldBack ?? 0, Number(last?.last ?? 0)) || null,
  }).execute();
}

/** The company's next message: the AEAT's oldest request first, else the next (up to) 1,000 records waiting. */
async function sendNext(ctx: AppContext, idempresa: number, token: string, queue: QueueRow): Promise<void> {
  const db = ctx.database.kysely;
  const company = await companyOf(db, idempresa);
  const request = await db.selectFrom('verifactu_requerimientos').selectAll().where('idempresa', '=', idempresa).where('estado', '=', 'pendiente').orderBy('id').limit(1).executeTakeFirst();
  if (request) {
    await answerRequest(ctx, idempresa, token, queue, request, xmlText(company?.nombre, 120));
    return;
  }
  const rows = await queued(db, idempresa).selectAll().orderBy('id').limit(MAX_RECORDS).execute();
  if (!rows.length) return;
  const records = rows.map((row) => readRecord(row) as unknown as SentRecord);
  const heldBack = queue.incidenciahasta === null || queue.incidenciahasta === undefined ? undefined : Number(queue.incidenciahasta);
  await deliver(ctx, {
    idempresa,
    tipo: 'remision',
    header: { taxpayer: { NombreRazon: xmlText(company?.nombre, 120), NIF: records[0]!.nifemisor }, incidencia: heldBack !== undefined && records[0]!.id <= heldBack },
    records,
  }, (trx, outcome, now) => settleQueue(trx, idempresa, token, queue, outcome, now, records[records.length - 1]!.id));
}

/**
 * The next message of a request of the AEAT (NO VERI*FACTU): the records of its period after the
 * last one sent, as kept (signed), with its reference; the last message says `FinRequerimiento=S`.
 * A period without records ends the request without a message (the AEAT takes none empty).
 */
async function answerRequest(ctx: AppContext, idempresa: number, token: string, queue: QueueRow, request: Record<string, unknown>, name: string): Promise<void> {
  const db = ctx.database.kysely;
  const desde = String(request.desde).slice(0, 10);
  const hasta = String(request.hasta).slice(0, 10);
  const rows = await generatedIn(db, 'registros_verifactu', idempresa, desde, hasta).selectAll()
    .where('id', '>', Number(request.ultimoregistro)).where('modo', '=', 'noverifactu')
    .orderBy('id').limit(MAX_RECORDS + 1).execute();
  if (!rows.length) {
    await db.updateTable('verifactu_requerimientos').set({ estado: Number(request.mensajes) ? 'enviado' : 'sinregistros' }).where('id', '=', Number(request.id)).execute();
    return;
  }
  const records = rows.slice(0, MAX_RECORDS).map((row) => readRecord(row) as unknown as SentRecord);
  const fin = rows.length <= MAX_RECORDS;
  await deliver(ctx, {
    idempresa,
    tipo: 'requerimiento',
    header: { taxpayer: { NombreRazon: name, NIF: records[0]!.nifemisor }, requerimiento: { ref: String(request.refrequerimiento), fin } },
    records,
  }, async (trx, outcome, now) => {
    if (outcome.answer) {
      // Only over the records the answer names, in order: one it left out goes in the next message.
      const named = new Set(outcome.answer.lines.map((line) => `${line.TipoOperacion}|${line.NumSerieFactura}|${line.FechaExpedicionFactura}`));
      const answered = records.findIndex((record) => !named.has(`${record.tipo === 'alta' ? 'Alta' : 'Anulacion'}|${record.numserie}|${record.fechaexpedicion}`));
      const through = answered === -1 ? records.length : answered;
      const done = through === records.length && fin;
      await trx.updateTable('verifactu_requerimientos').set({
        ultimoregistro: through ? records[through - 1]!.id : Number(request.ultimoregistro), mensajes: Number(request.mensajes) + 1, estado: done ? 'enviado' : 'pendiente',
      }).where('id', '=', Number(request.id)).execute();
    }
    await settleQueue(trx, idempresa, token, queue, outcome, now, 0);
  });
}

/** What came of a message: the AEAT's answer, or why there is none, and whether it may have arrived all the same. */
interface Delivery {
  idenvio: number;
  answer?: Answer;
  error?: string;
  /** Sent, but no answer was read (a transport failure): a later 3000 for its records is their own arrival. */
  unanswered?: boolean;
}

/**
 * Sends one message and stores what comes of it: the message row is written before it leaves (so a
 * sender that dies meanwhile leaves a trace that its records may have arrived), then completed with
 * the answer (stored on the records at once) or the failure. Answers the AEAT's answer, or the error.
 */
async function deliver(ctx: AppContext, message: Outgoing, settle: (db: DbExecutor, outcome: Delivery, now: number) => Promise<void>): Promise<Delivery> {
  const db = ctx.database.kysely;
  const { records } = message;
  const [idenvio] = await ctx.store.insertMany(verifactuEnvioModel, [{
    idempresa: message.idempresa, tipo: message.tipo, refrequerimiento: message.header.requerimiento?.ref ?? null, incidencia: Boolean(message.header.incidencia),
    registros: records.length, desde: records[0]!.id, hasta: records[records.length - 1]!.id, estado: 'enviando',
  }], db);
  let outcome: Delivery;
  let sent = false;
  try {
    const certificate = await certificateOf(ctx, db, message.idempresa);
    if (!certificate) throw new Error('no certificate: set the company\'s (verifactuempresa.certificado) or VERIFACTU_CERT_FILE');
    const switchRow = await db.selectFrom('verifactu_empresas').select(['entorno', 'tipocertificado']).where('idempresa', '=', message.idempresa).executeTakeFirstOrThrow();
    const body = suministroEnvelope(message.header, records.map((record) => ({ tipo: record.tipo, content: record.registro, signed: record.firmado ?? undefined })));
    const url = endpointOf(ctx.config.verifactu, switchRow.entorno as Environment, switchRow.tipocertificado === 'sello' ? 'sello' : 'personal', SERVICES[message.tipo]);
    const extraCa = await trustedAuthority(ctx, ctx.config.verifactu.caFile);
    sent = true;
    const answer = await postSoap({ url, body, certificate, extraCa, timeoutMs: ctx.config.verifactu.timeoutMs });
    const parsed = parseAnswer(answer.status, answer.body);
    // A SOAP fault is the AEAT refusing the whole message: nothing of it was registered.
    outcome = parsed.kind === 'answer' ? { idenvio: idenvio!, answer: parsed } : { idenvio: idenvio!, error: `${parsed.faultcode}: ${parsed.faultstring}` };
  } catch (error) {
    outcome = { idenvio: idenvio!, error: (error as Error).message, unanswered: sent };
  }
  if (process.env.INVOICING_TEST_KILL_AFTER_SEND === '1') process.kill(process.pid, 'SIGKILL');
  const now = ctx.clock.now();
  const finished = ctx.clock.timestamp();
  await inTransaction(ctx.database, async (trx) => {
    // A request's answer is the message's only: NO VERI*FACTU records are sent then, never corrected, and keep their state.
    if (outcome.answer) await storeAnswer(ctx, trx, message.idempresa, outcome.idenvio, message.tipo === 'remision' ? records : [], outcome.answer, finished);
    else await trx.updateTable('verifactu_envios').set({ estado: outcome.unanswered ? 'sinrespuesta' : 'fallido', error: outcome.error!.slice(0, 1500), fechafin: finished }).where('id', '=', outcome.idenvio).execute();
    await settle(trx, outcome, now);
  });
  if (outcome.error) ctx.log.warn({ idempresa: message.idempresa, idenvio: outcome.idenvio, error: outcome.error }, 'VERI*FACTU message not taken');
  return outcome;
}
