import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/**
 * Where a file stands with its treasury: `pendiente` (not sent yet, or to be sent again after the
 * service was down), `enviado` (sent, no answer read: sent again, a duplicate then counts as
 * taken), `aceptado` (registered, possibly with warnings), `rechazado` (refused: see `codigo`;
 * corrected through Zuzendu in Araba and Gipuzkoa, or sent again in Bizkaia).
 */
export const FILE_STATES = ['pendiente', 'enviado', 'aceptado', 'rechazado'] as const;
export type FileState = (typeof FILE_STATES)[number];
export const FILE_KINDS = ['alta', 'anulacion', 'zuzendu-alta', 'zuzendu-baja'] as const;

/**
 * Every TicketBAI file of every company (resource `registroticketbai`, read-only): invoices'
 * files in chain order per company, cancellations, and Zuzendu corrections; append-only
 * (db/append-only.ts) but for what the treasury answers. `fichero` is the file as signed, byte for
 * byte (`GET /api/3/registroticketbai/{id}/xml`).
 */
export const registroTicketbaiModel = defineModel({
  name: 'RegistroTicketbai',
  table: 'registros_ticketbai',
  alias: 'registroticketbais',
  readOnlyResource: true,
  appendOnly: { mutable: ['estado', 'codigo', 'descripcion', 'respuesta', 'csv', 'intentos', 'fechaenvio', 'fecharespuesta'] },
  fields: {
    id: f.serial(),
    idempresa: f.integer({ notNull: true, references: f.ref('ticketbai_empresas', 'idempresa', 'RESTRICT') }),
    tipo: f.string(12, { notNull: true, values: FILE_KINDS }),
    idfactura: f.integer({ notNull: true, references: f.ref('facturascli', 'idfactura', 'RESTRICT') }),
    territorio: f.string(10, { notNull: true }),
    entorno: f.string(12, { notNull: true }),
    /** The invoice as the file names it: series, number, `dd-mm-yyyy`, and its total as written. */
    nif: f.string(9, { notNull: true }),
    serie: f.string(20),
    numero: f.string(20, { notNull: true }),
    fecha: f.string(10, { notNull: true }),
    importe: f.string(20),
    /** An invoice's TBAI identifier and QR address (none for cancellations and corrections). */
    identificador: f.string(39),
    qr: f.string(500),
    /** The file's whole `SignatureValue` (none for Zuzendu, which is not signed). */
    firma: f.text(),
    /** The file chained to (the company's previous invoice file): its id and the 100 characters carried. */
    idanterior: f.integer(),
    firmaanterior: f.string(100),
    /** A Zuzendu correction: the file it corrects, and SUBSANAR or MODIFICAR. */
    idcorregido: f.integer(),
    accion: f.string(10),
    fichero: f.text({ notNull: true, hidden: true }),
    estado: f.string(10, { notNull: true, default: 'pendiente', values: FILE_STATES }),
    /** The treasury's codes (comma-separated) and texts, its whole answer, and its CSV. */
    codigo: f.string(100),
    descripcion: f.string(1500),
    respuesta: f.text(),
    csv: f.string(64),
    intentos: f.integer({ notNull: true, default: 0 }),
    fechaenvio: f.timestamp(),
    fecharespuesta: f.timestamp(),
    creationdate: f.timestamp({ initial: now }),
  },
  indexes: [['idempresa', 'id'], ['idfactura', 'id'], ['estado', 'idempresa', 'id']],
});

/**
 * The head of each company's chain (service bookkeeping): its row lock serialises issuing across
 * instances, and it carries what the next invoice's file chains to.
 */
export const chainHeadModel = defineModel({
  name: 'TicketbaiCadena',
  table: 'ticketbai_cadenas',
  internal: true,
  fields: {
    idempresa: f.integer({ primary: true, references: f.ref('ticketbai_empresas', 'idempresa', 'CASCADE') }),
    registros: f.integer({ notNull: true, default: 0 }),
    idultimo: f.integer(),
    serie: f.string(20),
    numero: f.string(20),
    fecha: f.string(10),
    firma: f.string(100),
  },
});

/**
 * Each company's sender (service bookkeeping): when it may send again after its treasury was
 * unreachable (back-off), the failures in a row, and the claim of the one instance sending now.
 */
export const sendQueueModel = defineModel({
  name: 'TicketbaiCola',
  table: 'ticketbai_colas',
  internal: true,
  fields: {
    idempresa: f.integer({ primary: true, references: f.ref('ticketbai_empresas', 'idempresa', 'CASCADE') }),
    siguiente: f.double(),
    fallos: f.integer({ notNull: true, default: 0 }),
    ultimoerror: f.string(1500),
    titular: f.string(40),
    reservahasta: f.double(),
  },
});
