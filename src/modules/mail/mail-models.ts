import { defineModel } from '../../models/define-model.ts';
import { validationError } from '../../errors.ts';
import { f, now, sortedFields } from '../../models/fields.ts';

/**
 * E-mail templates (table `emails_notifications`), by name: `sendmail-<Doc>` (the reference's
 * eight, Spanish), `sendmail-<Doc>-<lang>` for the other languages and `reminder[-<lang>]` for
 * payment reminders. `{field}` placeholders take the document's (or receipt's) values (docs/email.md).
 */
export const emailNotificationModel = defineModel({
  name: 'EmailNotification',
  table: 'emails_notifications',
  fields: {
    body: f.text(),
    creationdate: f.date(),
    enabled: f.boolean(),
    name: f.string(100, { primary: true }),
    subject: f.string(150, { notNull: true }),
  },
});

/** A message's states (docs/email.md): waiting or retrying, accepted by the server, given up. */
export const MAIL_STATES = { pending: 'pendiente', sent: 'enviado', failed: 'fallido' } as const;

/**
 * Sent e-mails (table `emails_sent`), the reference's log, which is also our outbox: a message
 * asked for through the API is a row `pendiente` written in the request's transaction; the sender
 * job fills the rest. The reference's columns keep their meaning (`addressee` the first recipient,
 * `attachment` whether any went with it, `date` when it was asked for); the outbox's are read-only
 * to clients, so a row written through the generic resource is a plain log entry, never sent.
 */
export const emailSentModel = defineModel({
  name: 'EmailSent',
  table: 'emails_sent',
  fields: sortedFields({
    addressee: f.string(100),
    attachment: f.boolean({ default: false }),
    body: f.text(),
    date: f.timestamp({ initial: now }),
    email_from: f.string(100),
    html: f.text(),
    id: f.serial(),
    nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    /** The reference's notification (template) name the message was made from. */
    notification: f.string(100),
    opened: f.boolean({ default: false }),
    subject: f.string(300),
    uuid: f.string(13),
    verificode: f.string(20),
    // The outbox (read-only: what the sender job sends and records).
    estado: f.string(10, { readOnly: true }),
    /** `documento` (enviar<Doc>) or `recordatorio` (a payment reminder). */
    tipo: f.string(20, { readOnly: true }),
    destinatarios: f.text({ readOnly: true }),
    copia: f.text({ readOnly: true }),
    copiaoculta: f.text({ readOnly: true }),
    responder: f.text({ readOnly: true }),
    /** The From header as it goes (`email_from` is the reference's column: the address alone). */
    remitente: f.text({ readOnly: true }),
    idempresa: f.integer({ readOnly: true }),
    /** The document it sends: class name and id (`FacturaCliente`, 12), its code, and for a reminder the receipt. */
    modelo: f.string(30, { readOnly: true }),
    modeloid: f.integer({ readOnly: true }),
    codigo: f.string(40, { readOnly: true }),
    idrecibo: f.integer({ readOnly: true }),
    idioma: f.string(10, { readOnly: true }),
    /** What to attach, rendered when it is sent: `{ exports: ['PDF', 'UBL'], files: [idfile ...] }`. */
    adjuntar: f.json({ readOnly: true }),
    /** The attachments' file names as they went. */
    adjuntos: f.text({ readOnly: true }),
    messageid: f.string(255, { readOnly: true }),
    intentos: f.integer({ readOnly: true, default: 0 }),
    siguienteintento: f.timestamp({ readOnly: true }),
    /** Set while a sender hands the message to the server, cleared when the outcome is recorded (docs/email.md, "Exactly once?"). */
    entregando: f.timestamp({ readOnly: true }),
    /** The message may have reached the server twice: an earlier hand-over's outcome was never recorded. */
    posibleduplicado: f.boolean({ readOnly: true, default: false }),
    /** The claim of the sender handling it now (docs/email.md, "One sender per message"). */
    reserva: f.string(40, { hidden: true, readOnly: true }),
    respuesta: f.string(500, { readOnly: true }),
    error: f.string(500, { readOnly: true }),
    fechaenvio: f.timestamp({ readOnly: true }),
  }),
  indexes: [['estado', 'siguienteintento'], ['modelo', 'modeloid']],
  hooks: {
    // A message of the outbox goes as it was checked when asked for: its text and addresses never
    // change afterwards (a key allowed to edit the log must not send other mail through the company's server).
    beforeSave({ existing, values }) {
      if (!existing?.estado) return;
      const changed = Object.keys(values).find((name) => values[name] !== undefined && values[name] !== existing[name]);
      if (changed) throw validationError({ [changed]: 'read-only' });
    },
  },
});

/**
 * Customers who receive no payment reminders (`emails_optouts`): a row per customer, gone with it.
 * A resource of its own so that the customer's answers stay the reference's.
 */
export const emailOptOutModel = defineModel({
  name: 'EmailOptOut',
  table: 'emails_optouts',
  fields: {
    codcliente: f.string(10, { primary: true, references: f.ref('clientes', 'codcliente', 'CASCADE') }),
    creationdate: f.timestamp({ initial: now, readOnly: true }),
    observaciones: f.text(),
  },
});

/** The reminder levels sent per receipt (internal): the unique key makes each level go once, whichever instance queues it. */
export const emailReminderModel = defineModel({
  name: 'EmailReminder',
  table: 'emails_reminders',
  internal: true,
  fields: {
    id: f.serial(),
    idrecibo: f.integer({ notNull: true, references: f.ref('recibospagoscli', 'idrecibo', 'CASCADE') }),
    /** The days after the due date this level was set to. */
    nivel: f.integer({ notNull: true }),
    /** The message that carried it; null when a higher level went instead (a receipt already later than this one). */
    idemail: f.integer(),
    creado: f.timestamp({ notNull: true, initial: now }),
  },
  unique: [['idrecibo', 'nivel']],
});
