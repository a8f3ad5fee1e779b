import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { AppContext } from '../../../app-context.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { afterCommit, inTransaction } from '../../../db/transaction.ts';
import { publish } from '../../../event-log.ts';
import { companyOf } from '../../company/index.ts';
import { backoffSeconds, postOverTls, TransportError, trustedAuthority, xmlText } from '../../verifactu/index.ts';
import { certificateOf, switchOf } from '../company-switch.ts';
import { registroTicketbaiModel, sendQueueModel } from '../record-models.ts';
import { TERRITORY, type Entorno, type Operation, type Territorio } from '../territories.ts';
import { lroeKey, parseLroeAnswer, parseRestAnswer, type Answer, type FileOutcome } from './answers.ts';
import { endpointOf } from './endpoints.ts';
import { lroeRequest } from './lroe-request.ts';

/** At most this many files in one LROE submission (Batuz: 1,000 TicketBAI files). */
const MAX_FILES = 1000;
/** Companies sent for at once by one instance (each its own connection to its treasury). */
const PARALLEL_COMPANIES = 4;
const WAITING = ['pendiente', 'enviado'];

type FileRow = Record<string, unknown> & { id: number; tipo: Operation; territorio: Territorio; entorno: Entorno; fecha: string; fichero: string };

/**
 * After the commit that made a file: its company's files sent now where the treasury takes them at
 * issuance (Araba, Gipuzkoa); a failure is the sending job's to retry. Bizkaia's wait for the job,
 * which sends them in batches.
 */
export function sendAfterCommit(ctx: AppContext, db: DbExecutor, idempresa: number, territorio: Territorio): void {
  if (!TERRITORY[territorio].atIssuance) return;
  afterCommit(db, () => void sendCompany(ctx, idempresa).catch((error: unknown) => {
    ctx.log.warn({ err: error, idempresa }, 'TicketBAI: sending at issuance failed; the sending job tries again');
  }));
}

/** The background job: every company with files waiting, each sent for by one instance at a time. */
export async function sendDueFiles(ctx: AppContext): Promise<void> {
  const db = ctx.database.kysely;
  const companies = await db.selectFrom(registroTicketbaiModel.table).select('idempresa').where('estado', 'in', WAITING).groupBy('idempresa').execute();
  const limit = pLimit(PARALLEL_COMPANIES);
  await Promise.all(companies.map((row) => limit(() => sendCompany(ctx, Number(row.idempresa)).catch((error: unknown) => {
    ctx.log.error({ err: error, idempresa: row.idempresa }, 'TicketBAI sending failed');
  }))));
}

/**
 * Sends a company's waiting files, in the order they were made (the chain's), unless its treasury
 * was unreachable a moment ago (back-off: 1, 2, 4 ... minutes, at most an hour) or another instance
 * is sending for it (a claim on its queue row, lasting while each request may). Araba and Gipuzkoa
 * take one file a request, at issuance; Bizkaia takes up to 1,000 of one year and operation in one
 * LROE submission. What the treasury says is stored on each file at once; a file whose request got
 * no answer stays `enviado` and goes again (the treasury then says it holds it: taken).
 */
export async function sendCompany(ctx: AppContext, idempresa: number): Promise<void> {
  const db = ctx.database.kysely;
  const queue = () => db.selectFrom(sendQueueModel.table).selectAll().where('idempresa', '=', idempresa).executeTakeFirst();
  let seen = await queue();
  if (!seen) {
    await ctx.database.dialect.insertIgnore(db.insertInto(sendQueueModel.table).values({ idempresa, fallos: 0 }), ['idempresa']).execute();
    seen = (await queue())!;
  }
  const now = ctx.clock.now();
  if (seen.siguiente !== null && seen.siguiente !== undefined && Number(seen.siguiente) > now) return;
  const token = randomUUID();
  const claim = () => db.updateTable(sendQueueModel.table).set({ titular: token, reservahasta: ctx.clock.now() + 2 * ctx.config.ticketbai.timeoutMs })
    .where('idempresa', '=', idempresa).where((eb) => eb.or([eb('titular', 'is', null), eb('titular', '=', token), eb('reservahasta', '<', ctx.clock.now())])).executeTakeFirst();
  if (Number((await claim()).numUpdatedRows) !== 1) return;
  try {
    // Read again under the claim: another instance may have met a failure since.
    const current = (await queue())!;
    if (current.siguiente !== null && current.siguiente !== undefined && Number(current.siguiente) > ctx.clock.now()) return;
    let failures = Number(current.fallos ?? 0);
    for (;;) {
      const batch = await nextBatch(db, idempresa);
      if (!batch.length) break;
      const failure = await sendBatch(ctx, idempresa, batch).catch((error: unknown) => `the answer could not be stored: ${(error as Error).message}`);
      if (failure) {
        failures += 1;
        await db.updateTable(sendQueueModel.table).set({ fallos: failures, siguiente: ctx.clock.now() + backoffSeconds(failures) * 1000, ultimoerror: failure.slice(0, 1500) })
          .where('idempresa', '=', idempresa).where('titular', '=', token).execute();
        ctx.log.warn({ idempresa, error: failure }, 'TicketBAI: the treasury did not take the files, they go again later');
        return;
      }
      if (failures) {
        failures = 0;
        await db.updateTable(sendQueueModel.table).set({ fallos: 0, siguiente: null, ultimoerror: null }).where('idempresa', '=', idempresa).where('titular', '=', token).execute();
      }
      // Another instance took the company over (this one stalled past its claim): it sends the rest.
      if (Number((await claim()).numUpdatedRows) !== 1) return;
    }
  } finally {
    await db.updateTable(sendQueueModel.table).set({ titular: null, reservahasta: null }).where('idempresa', '=', idempresa).where('titular', '=', token).execute();
  }
}

/** The next request's files: the oldest waiting one, and in Bizkaia those of its operation and year that follow it. */
async function nextBatch(db: DbExecutor, idempresa: number): Promise<FileRow[]> {
  const waiting = () => db.selectFrom(registroTicketbaiModel.table).selectAll().where('idempresa', '=', idempresa).where('estado', 'in', WAITING).orderBy('id');
  const first = await waiting().limit(1).executeTakeFirst() as FileRow | undefined;
  if (!first || first.territorio !== 'bizkaia') return first ? [first] : [];
  const rows = await waiting().where('tipo', '=', first.tipo).where('id', '>=', first.id).limit(MAX_FILES).execute() as FileRow[];
  const year = (row: FileRow) => String(row.fecha).slice(6, 10);
  const end = rows.findIndex((row) => year(row) !== year(first));
  return end === -1 ? rows : rows.slice(0, end);
}

/** Sends one request and stores what came of it; answers why nothing (or not everything) was taken, to back off, or undefined. */
async function sendBatch(ctx: AppContext, idempresa: number, batch: FileRow[]): Promise<string | undefined> {
  const db = ctx.database.kysely;
  const [first] = batch as [FileRow];
  const ids = batch.map((row) => row.id);
  // Why the files wait, on the files themselves: the API and the console show it.
  const waitAgain = (reason: string, estado: 'pendiente' | 'enviado') => db.updateTable(registroTicketbaiModel.table).set({ estado, descripcion: reason.slice(0, 1500) }).where('id', 'in', ids).execute();
  const url = endpointOf(ctx.config.ticketbai, first.territorio, first.entorno, first.tipo);
  if (!url) {
    await storeOutcomes(ctx, idempresa, batch, batch.map(() => ({ estado: 'rechazado', codigo: null, descripcion: `${first.territorio} has no service for ${first.tipo}`, csv: null })), null);
    return undefined;
  }
  let answer: Answer;
  let text: string | null = null;
  try {
    const certificate = await certificateOf(ctx, db, idempresa);
    if (!certificate) {
      const reason = 'no certificate: set the company\'s (ticketbaiempresa.certificado)';
      await waitAgain(reason, 'pendiente');
      return reason;
    }
    await db.updateTable(registroTicketbaiModel.table).set((eb) => ({ estado: 'enviado', intentos: eb('intentos', '+', 1), fechaenvio: ctx.clock.timestamp() })).where('id', 'in', ids).execute();
    const extraCa = await trustedAuthority(ctx, ctx.config.ticketbai.caFile);
    const timeoutMs = ctx.config.ticketbai.timeoutMs;
    if (first.territorio === 'bizkaia') {
      const company = await companyOf(db, idempresa);
      const settings = await switchOf(db, idempresa);
      const request = lroeRequest({
        modelo: settings?.modelolroe ?? '240', operation: first.tipo === 'anulacion' ? 'anulacion' : 'alta', ejercicio: first.fecha.slice(6, 10),
        taxpayer: { nif: String(first.nif), name: xmlText(company?.nombre, 120) }, epigrafe: settings?.epigrafe, files: batch.map((row) => row.fichero),
      });
      const reply = await postOverTls({ url, body: request.body, headers: request.headers, certificate, extraCa, timeoutMs });
      const keys = batch.map((row) => lroeKey(row.serie as string | null, String(row.numero), row.fecha));
      answer = parseLroeAnswer(reply.status, reply.headers, reply.body, keys, first.tipo === 'anulacion' ? 'anulacion' : 'alta');
      text = JSON.stringify(Object.fromEntries(Object.entries(reply.headers).filter(([name]) => name.startsWith('eus-bizkaia-n3-'))));
    } else {
      const reply = await postOverTls({ url, body: Buffer.from(first.fichero, 'utf8'), headers: { 'content-type': 'application/xml;charset=UTF-8' }, certificate, extraCa, timeoutMs });
      text = reply.body.toString('utf8');
      answer = parseRestAnswer(reply.status, text, first.tipo);
    }
  } catch (error) {
    const reason = (error as Error).message;
    // Never connected (no such host, refused, TLS refused) or failed before sending: the files did not leave.
    await waitAgain(reason, error instanceof TransportError && error.sent ? 'enviado' : 'pendiente');
    return reason;
  }
  if ('unavailable' in answer) {
    // The treasury said so, or answered no document: nothing registered, the files go again.
    await waitAgain(answer.unavailable, 'pendiente');
    return answer.unavailable;
  }
  await storeOutcomes(ctx, idempresa, batch, answer.outcomes, text);
  // Files the answer did not name go again, after the back-off (never at once in a loop).
  return answer.outcomes.some((outcome) => outcome.estado === 'pendiente') ? 'the answer did not name every file sent' : undefined;
}

/** Each file's outcome stored, with an event for each answered one; an accepted correction marks the file it corrects accepted too. */
async function storeOutcomes(ctx: AppContext, idempresa: number, batch: FileRow[], outcomes: FileOutcome[], answer: string | null): Promise<void> {
  const answered = ctx.clock.timestamp();
  await inTransaction(ctx.database, async (trx) => {
    for (const [index, row] of batch.entries()) {
      const outcome = outcomes[index]!;
      await trx.updateTable(registroTicketbaiModel.table).set({
        estado: outcome.estado, codigo: outcome.codigo, descripcion: outcome.descripcion, csv: outcome.csv, respuesta: answer, fecharespuesta: answered,
      }).where('id', '=', row.id).execute();
      if (outcome.estado === 'pendiente') continue;
      if (outcome.estado === 'aceptado' && row.idcorregido !== null && row.idcorregido !== undefined) {
        await trx.updateTable(registroTicketbaiModel.table).set({ estado: 'aceptado', codigo: `zuzendu ${row.id}`, fecharespuesta: answered }).where('id', '=', Number(row.idcorregido)).execute();
      }
      await publish(trx, ctx, {
        type: 'ticketbai.state',
        payload: { idempresa, idregistro: row.id, idfactura: Number(row.idfactura), tipo: row.tipo, estado: outcome.estado, codigo: outcome.codigo, descripcion: outcome.descripcion },
        resource: registroTicketbaiModel.resource,
        key: row.id,
      });
    }
  });
}
