import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { formatAddresses, type Address } from './addresses.ts';
import type { FilledText } from './fill-template.ts';
import { emailSentModel, MAIL_STATES } from './mail-models.ts';

/** A message to queue: who, what, and what to attach when it goes. */
export interface NewMessage {
  tipo: 'documento' | 'recordatorio';
  idempresa: number;
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address | undefined;
  text: FilledText;
  lang: string;
  document: { modelo: string; modeloid: number; codigo: string } | undefined;
  idrecibo?: number;
  /** Export types rendered when sent (`signed`: e-invoices signed), and linked files by id. */
  attach: { exports: string[]; files: number[]; signed?: boolean };
  nick?: string | null;
}

/**
 * A Message-ID of our own, fixed when the message is queued: every attempt sends the same one, so
 * a recipient's client shows a message the server took twice (docs/email.md) as one.
 */
export function messageIdFor(uuid: string, from: Address): string {
  const domain = from.address.split('@')[1] ?? 'localhost';
  return `<${uuid}.${Date.now().toString(36)}@${domain}>`;
}

/**
 * Writes a message `pendiente` into the outbox in the caller's transaction `db`: it goes when that
 * commits (the sender job), never for a change that rolled back. Returns the record's id.
 */
export async function queueMessage(ctx: AppContext, db: DbExecutor, message: NewMessage): Promise<number> {
  const uuid = randomBytes(7).toString('hex').slice(0, 13);
  const now = ctx.clock.timestamp();
  const attaching = message.attach.exports.length + message.attach.files.length > 0;
  // The outbox's columns are read-only to clients only: the store writes what it is given.
  const { record } = await ctx.store.create(emailSentModel, {
    addressee: message.to[0]!.address.slice(0, 100),
    attachment: attaching,
    body: message.text.text,
    date: now,
    email_from: message.from.address.slice(0, 100),
    remitente: formatAddresses([message.from]),
    html: message.text.html,
    nick: message.nick ?? null,
    subject: message.text.subject,
    uuid,
    estado: MAIL_STATES.pending,
    tipo: message.tipo,
    destinatarios: formatAddresses(message.to),
    copia: formatAddresses(message.cc),
    copiaoculta: formatAddresses(message.bcc),
    responder: message.replyTo ? formatAddresses([message.replyTo]) : null,
    idempresa: message.idempresa,
    modelo: message.document?.modelo ?? null,
    modeloid: message.document?.modeloid ?? null,
    codigo: message.document?.codigo.slice(0, 40) ?? null,
    idrecibo: message.idrecibo ?? null,
    idioma: message.lang,
    adjuntar: message.attach,
    messageid: messageIdFor(uuid, message.from),
    intentos: 0,
    siguienteintento: now,
  }, db);
  const id = Number(record.id);
  return id;
}
