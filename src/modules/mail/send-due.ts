import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import { publish } from '../../event-log.ts';
import type { MailEvent } from '../../events.ts';
import { inTransaction } from '../../db/transaction.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { emailSentModel, MAIL_STATES } from './mail-models.ts';
import { mailSettingsOf, unconfigured } from './mail-settings.ts';
import { attachmentsOf, MissingAttachment } from './message-attachments.ts';
import { failureOf, sendThroughSmtp, type SendFailure } from './smtp-transport.ts';

/** Messages one run takes at most (the next run takes the rest). */
const BATCH = 10;

type Row = Record<string, unknown>;

const stampOf = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/**
 * Takes due messages for this sender. Each is claimed by a conditional update (still pending,
 * still due, its claim token replaced): of two instances racing for one, the second's update finds
 * it no longer due and takes nothing, on every engine. The claim lasts three timeouts; a sender
 * that dies holding it leaves the message to whoever comes after.
 */
async function claim(ctx: AppContext): Promise<Array<{ row: Row; token: string }>> {
  const db = ctx.database.kysely;
  const now = ctx.clock.now();
  const due = await db.selectFrom('emails_sent').select('id').where('estado', '=', MAIL_STATES.pending).where('siguienteintento', '<=', stampOf(now))
    .orderBy('id').limit(BATCH).execute();
  const claimed: Array<{ row: Row; token: string }> = [];
  for (const { id } of due) {
    const token = randomBytes(15).toString('base64url');
    const taken = await db.updateTable('emails_sent').set({ reserva: token, siguienteintento: stampOf(now + 3 * ctx.config.mail.timeoutMs) })
      .where('id', '=', Number(id)).where('estado', '=', MAIL_STATES.pending).where('siguienteintento', '<=', stampOf(now)).executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) continue;
    const row = await db.selectFrom('emails_sent').selectAll().where('id', '=', Number(id)).executeTakeFirst();
    if (row) claimed.push({ row, token });
  }
  return claimed;
}

function eventOf(row: Row, extra: Partial<MailEvent>): MailEvent {
  return {
    id: Number(row.id), tipo: text(row.tipo), to: text(row.destinatarios), subject: text(row.subject),
    modelo: row.modelo === null ? null : text(row.modelo), modeloid: row.modeloid === null ? null : Number(row.modeloid),
    idrecibo: row.idrecibo === null || row.idrecibo === undefined ? null : Number(row.idrecibo), messageid: text(row.messageid), ...extra,
  };
}

/**
 * Records an attempt's outcome, if the claim is still ours (a sender slower than its claim lost
 * the message to another; what it learnt is then that one's to record). `email.sent` and
 * `email.failed` are logged with it.
 */
async function record(ctx: AppContext, row: Row, token: string, outcome: { sent: { response: string; names: string[] } } | { failure: SendFailure }): Promise<void> {
  const attempts = Number(row.intentos ?? 0) + 1;
  const now = ctx.clock.now();
  const { config } = ctx;
  const possibleDuplicate = dbBoolean(row.posibleduplicado) || row.entregando !== null;
  await inTransaction(ctx.database, async (db) => {
    let changes: Row;
    let event: Parameters<typeof publish>[2] | undefined;
    if ('sent' in outcome) {
      changes = { estado: MAIL_STATES.sent, respuesta: outcome.sent.response.slice(0, 500), error: null, fechaenvio: stampOf(now), adjuntos: outcome.sent.names.join(', '), attachment: ctx.database.dialect.boolean(outcome.sent.names.length > 0) };
      event = { type: 'email.sent', payload: eventOf(row, { response: outcome.sent.response.slice(0, 500), possibleDuplicate }), resource: emailSentModel.resource, key: row.id };
    } else {
      const giveUp = outcome.failure.permanent || attempts >= config.mail.maxAttempts;
      const retryIn = Math.min(3600, config.mail.retryBaseSeconds * 2 ** (attempts - 1)) * 1000;
      changes = giveUp ? { estado: MAIL_STATES.failed, error: outcome.failure.reason } : { error: outcome.failure.reason, siguienteintento: stampOf(now + retryIn) };
      if (giveUp) event = { type: 'email.failed', payload: eventOf(row, { reason: outcome.failure.reason, possibleDuplicate }), resource: emailSentModel.resource, key: row.id };
    }
    const result = await db.updateTable('emails_sent').set({ ...changes, intentos: attempts, entregando: null, reserva: null, posibleduplicado: ctx.database.dialect.boolean(possibleDuplicate) })
      .where('id', '=', Number(row.id)).where('reserva', '=', token).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1 && event) await publish(db, ctx, event);
  });
}

/** One claimed message: its attachments rendered, handed to the server, the outcome recorded. */
async function sendOne(ctx: AppContext, row: Row, token: string): Promise<void> {
  const settings = await mailSettingsOf(ctx, Number(row.idempresa ?? 1));
  const missing = unconfigured(settings);
  if (missing) return record(ctx, row, token, { failure: { permanent: false, reason: `mail-not-configured: ${missing}` } });
  let attachments;
  try {
    attachments = await attachmentsOf(ctx, row);
  } catch (error) {
    // A document or file gone will not come back; anything else (a renderer's failure) counts as an attempt.
    const permanent = error instanceof MissingAttachment;
    if (!permanent) ctx.log.error({ err: error, email: row.id }, 'e-mail attachments could not be made');
    return record(ctx, row, token, { failure: { permanent, reason: permanent ? (error as Error).message : `attachments-failed: ${String((error as Error).message ?? error)}`.slice(0, 500) } });
  }
  // From here the server may take the message: a crash before the outcome is recorded leaves this
  // mark, and whoever sends it again says that it may arrive twice.
  const handing = await ctx.database.kysely.updateTable('emails_sent').set({ entregando: ctx.clock.timestamp() }).where('id', '=', Number(row.id)).where('reserva', '=', token).executeTakeFirst();
  if (Number(handing.numUpdatedRows) !== 1) return;
  try {
    const accepted = await sendThroughSmtp(settings, {
      from: text(row.email_from), to: text(row.destinatarios), cc: text(row.copia) || undefined, bcc: text(row.copiaoculta) || undefined,
      replyTo: text(row.responder) || undefined, subject: text(row.subject), text: text(row.body), html: text(row.html), messageId: text(row.messageid), attachments,
    }, ctx.config.mail.timeoutMs);
    const refused = accepted.rejected.length ? ` (refused: ${accepted.rejected.join(', ')})` : '';
    await record(ctx, row, token, { sent: { response: accepted.response + refused, names: attachments.map((file) => file.filename) } });
  } catch (error) {
    await record(ctx, row, token, { failure: failureOf(error) });
  }
}

/** The sender job: sends what is due, one message after another; returns how many it took. */
export async function sendDue(ctx: AppContext): Promise<number> {
  const claimed = await claim(ctx);
  for (const { row, token } of claimed) {
    try {
      await sendOne(ctx, row, token);
    } catch (error) {
      // Left claimed: it is tried again once the claim runs out.
      ctx.log.error({ err: error, email: row.id }, 'e-mail could not be sent');
    }
  }
  return claimed.length;
}
