import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import { publish } from '../../event-log.ts';
import type { MailEvent } from '../../events.ts';
import { inTransaction } from '../../db/transaction.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { textOf } from '../../models/record-rules.ts';
import { emailSentModel, MAIL_STATES } from './mail-models.ts';
import { mailSettingsOf } from './mail-settings.ts';
import { attachmentsOf, MissingAttachment } from './message-attachments.ts';
import { reminderObsolete } from './payment-reminders.ts';
import { failureOf, sendThroughSmtp, type SendFailure } from './smtp-transport.ts';

/** Messages one run sends at most (the next run takes the rest). */
const BATCH = 10;

type Row = Record<string, unknown>;

/** How long a sender's claim lasts: ten of its timeouts (connection, greeting, every wait for an answer). */
const leaseOf = (ctx: AppContext) => 10 * ctx.config.mail.timeoutMs;

/**
 * Takes one due message for this sender, counting the attempt; undefined when another took it
 * first. The claim is a conditional update (still pending, still due: its token and lease
 * written): of two instances racing for one message the second's update finds it no longer due
 * and takes nothing, on every engine. Made just before the message is sent, so that no claim runs
 * out while other messages are sent.
 */
async function claim(ctx: AppContext, id: number): Promise<{ row: Row; token: string } | undefined> {
  const db = ctx.database.kysely;
  const now = ctx.clock.timestamp();
  const token = randomBytes(15).toString('base64url');
  const taken = await db.updateTable('emails_sent').set((eb) => ({ reserva: token, siguienteintento: ctx.clock.timestamp(leaseOf(ctx)), intentos: eb('intentos', '+', 1) }))
    .where('id', '=', id).where('estado', '=', MAIL_STATES.pending).where('siguienteintento', '<=', now).executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) return undefined;
  const row = await db.selectFrom('emails_sent').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { row, token };
}

function eventOf(row: Row, extra: Partial<MailEvent>): MailEvent {
  return {
    id: Number(row.id), tipo: textOf(row.tipo), to: textOf(row.destinatarios), subject: textOf(row.subject),
    modelo: row.modelo === null ? null : textOf(row.modelo), modeloid: row.modeloid === null ? null : Number(row.modeloid),
    idrecibo: row.idrecibo === null || row.idrecibo === undefined ? null : Number(row.idrecibo), messageid: textOf(row.messageid), ...extra,
  };
}

/**
 * Records an attempt's outcome, if the claim is still ours (a sender slower than its claim lost
 * the message to another; what it learnt is then that one's to record). `email.sent` and
 * `email.failed` are logged with it. A failure after the whole message was written keeps the
 * hand-over mark: the next attempt says that it may deliver the message twice.
 */
async function record(ctx: AppContext, row: Row, token: string, outcome: { sent: { response: string; names: string[] } } | { failure: SendFailure }): Promise<void> {
  const attempts = Number(row.intentos ?? 1);
  const { config } = ctx;
  const { dialect } = ctx.database;
  const possibleDuplicate = dbBoolean(row.posibleduplicado) || row.entregando !== null;
  await inTransaction(ctx.database, async (db) => {
    let changes: Row;
    let event: Parameters<typeof publish>[2] | undefined;
    if ('sent' in outcome) {
      const response = outcome.sent.response.slice(0, 500);
      changes = { estado: MAIL_STATES.sent, respuesta: response, error: null, fechaenvio: ctx.clock.timestamp(), adjuntos: outcome.sent.names.join(', '), attachment: dialect.boolean(outcome.sent.names.length > 0), entregando: null };
      event = { type: 'email.sent', payload: eventOf(row, { response, possibleDuplicate }), resource: emailSentModel.resource, key: row.id };
    } else {
      const { failure } = outcome;
      const giveUp = failure.permanent || attempts >= config.mail.maxAttempts;
      const retryIn = Math.min(3600, config.mail.retryBaseSeconds * 2 ** (attempts - 1)) * 1000;
      changes = { error: failure.reason, ...(giveUp ? { estado: MAIL_STATES.failed } : { siguienteintento: ctx.clock.timestamp(retryIn) }), ...(failure.afterData ? {} : { entregando: null }) };
      if (giveUp) event = { type: 'email.failed', payload: eventOf(row, { reason: failure.reason, possibleDuplicate }), resource: emailSentModel.resource, key: row.id };
    }
    const result = await db.updateTable('emails_sent').set({ ...changes, reserva: null, posibleduplicado: dialect.boolean(possibleDuplicate) })
      .where('id', '=', Number(row.id)).where('reserva', '=', token).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1 && event) await publish(db, ctx, event);
  });
}

/** What stops a claimed message before its hand-over (attempts used up, a reminder no longer due, attachments that cannot be made), else its attachments. */
async function readyToSend(ctx: AppContext, row: Row): Promise<{ failure: SendFailure } | { attachments: Awaited<ReturnType<typeof attachmentsOf>> }> {
  // Past the last attempt: only a sender that died before recording counts them up to here.
  if (Number(row.intentos) > ctx.config.mail.maxAttempts) return { failure: { permanent: true, reason: `attempts-exhausted: ${textOf(row.error)}`.slice(0, 500) } };
  if (row.idrecibo !== null && row.idrecibo !== undefined) {
    const obsolete = await reminderObsolete(ctx.database.kysely, Number(row.idrecibo));
    if (obsolete) return { failure: { permanent: true, reason: `reminder-cancelled: ${obsolete}` } };
  }
  try {
    return { attachments: await attachmentsOf(ctx, row) };
  } catch (error) {
    // A document or file gone will not come back; anything else (a renderer's failure) is an attempt.
    const permanent = error instanceof MissingAttachment;
    if (!permanent) ctx.log.error({ err: error, email: row.id }, 'e-mail attachments could not be made');
    return { failure: { permanent, reason: permanent ? (error as Error).message : `attachments-failed: ${String((error as Error).message ?? error)}`.slice(0, 500) } };
  }
}

/** One claimed message: checked, its attachments rendered, handed to the server, the outcome recorded. */
async function sendOne(ctx: AppContext, row: Row, token: string): Promise<void> {
  const settings = await mailSettingsOf(ctx, Number(row.idempresa ?? 1));
  // The sender, recipients and text are the row's: a server is all the settings must still give.
  if (!settings.host) return record(ctx, row, token, { failure: { permanent: false, reason: 'mail-not-configured: host' } });
  const ready = await readyToSend(ctx, row);
  if ('failure' in ready) return record(ctx, row, token, ready);
  const { attachments } = ready;
  // From here the server may take the message: a crash before the outcome is recorded leaves this
  // mark, and whoever sends it again says that it may arrive twice. The claim starts again with it.
  const handing = await ctx.database.kysely.updateTable('emails_sent').set({ entregando: ctx.clock.timestamp(), siguienteintento: ctx.clock.timestamp(leaseOf(ctx)) })
    .where('id', '=', Number(row.id)).where('reserva', '=', token).executeTakeFirst();
  if (Number(handing.numUpdatedRows) !== 1) return;
  try {
    const accepted = await sendThroughSmtp(settings, {
      from: textOf(row.remitente) || textOf(row.email_from), to: textOf(row.destinatarios), cc: textOf(row.copia) || undefined, bcc: textOf(row.copiaoculta) || undefined,
      replyTo: textOf(row.responder) || undefined, subject: textOf(row.subject), text: textOf(row.body), html: textOf(row.html), messageId: textOf(row.messageid), attachments,
    }, ctx.config.mail.timeoutMs);
    const refused = accepted.rejected.length ? ` (refused: ${accepted.rejected.join(', ')})` : '';
    await record(ctx, row, token, { sent: { response: accepted.response + refused, names: attachments.map((file) => file.filename) } });
  } catch (error) {
    await record(ctx, row, token, { failure: failureOf(error) });
  }
}

/** The sender job: the messages due when it starts (at most BATCH), one after another; returns how many it sent or tried. */
export async function sendDue(ctx: AppContext): Promise<number> {
  const due = await ctx.database.kysely.selectFrom('emails_sent').select('id').where('estado', '=', MAIL_STATES.pending)
    .where('siguienteintento', '<=', ctx.clock.timestamp()).orderBy('id').limit(BATCH).execute();
  let taken = 0;
  for (const { id } of due) {
    const next = await claim(ctx, Number(id));
    if (!next) continue;
    taken++;
    try {
      await sendOne(ctx, next.row, next.token);
    } catch (error) {
      // Left claimed (its attempt counted): tried again once the claim runs out.
      ctx.log.error({ err: error, email: next.row.id }, 'e-mail could not be sent');
    }
  }
  return taken;
}
