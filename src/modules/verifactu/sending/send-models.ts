import { defineModel } from '../../../models/define-model.ts';
import { f, now } from '../../../models/fields.ts';

/**
 * How a message ended: `respondido`; `fallido` when it never left or the AEAT refused it whole (a
 * SOAP fault); `sinrespuesta` when it left and no answer came back (its records may have arrived);
 * still `enviando` when its sender died before it could store what came of it.
 */
const MESSAGE_STATES = ['enviando', 'respondido', 'fallido', 'sinrespuesta'] as const;

/**
 * The messages sent to the AEAT (resource `verifactuenvio`, read-only): one row per
 * `RegFactuSistemaFacturacion`, written before it leaves and completed with what came back (the
 * CSV and the submission data, which the AEAT never gives again) or with the fault or transport
 * failure. The operator's record of what was sent when.
 */
export const verifactuEnvioModel = defineModel({
  name: 'VerifactuEnvio',
  table: 'verifactu_envios',
  alias: 'verifactuenvios',
  readOnlyResource: true,
  fields: {
    id: f.serial(),
    idempresa: f.integer({ notNull: true, references: f.ref('verifactu_empresas', 'idempresa', 'CASCADE') }),
    /** `remision` (VERI*FACTU mode) or `requerimiento` (records the AEAT asked for, NO VERI*FACTU). */
    tipo: f.string(15, { notNull: true, default: 'remision', values: ['remision', 'requerimiento'] }),
    refrequerimiento: f.string(18),
    /** `Incidencia=S`: the message carries records held back by a failure. */
    incidencia: f.boolean({ notNull: true, default: false }),
    registros: f.integer({ notNull: true }),
    /** The first and last record it carries (records of one company go in generation order). */
    desde: f.integer({ notNull: true }),
    hasta: f.integer({ notNull: true }),
    estado: f.string(12, { notNull: true, default: 'enviando', values: MESSAGE_STATES }),
    csv: f.string(64),
    estadoenvio: f.string(25),
    idpeticion: f.string(20),
    timestamppresentacion: f.string(40),
    nifpresentador: f.string(9),
    tiempoespera: f.integer(),
    /** A SOAP fault's code and text, or the transport failure. */
    error: f.string(1500),
    fecha: f.timestamp({ initial: now }),
    fechafin: f.timestamp(),
  },
  indexes: [['idempresa', 'id']],
});

/**
 * Each company's sender (service bookkeeping): when the next message may leave (flow control), the
 * failures in a row (back-off), the last record held back by a failure (`Incidencia`), and the claim
 * of the one instance sending for it now.
 */
export const sendQueueModel = defineModel({
  name: 'VerifactuCola',
  table: 'verifactu_colas',
  internal: true,
  fields: {
    idempresa: f.integer({ primary: true, references: f.ref('verifactu_empresas', 'idempresa', 'CASCADE') }),
    /** Epoch ms before which no message leaves unless 1,000 records wait; null until the first answer. */
    siguiente: f.double(),
    tiempoespera: f.integer(),
    fallos: f.integer({ notNull: true, default: 0 }),
    incidenciahasta: f.integer(),
    ultimoerror: f.string(1500),
    titular: f.string(40),
    /** Epoch ms the claim lasts until. */
    reservahasta: f.double(),
  },
});

/**
 * The AEAT's requests (requerimientos) to a NO VERI*FACTU company (resource
 * `verifacturequerimiento`, registered through `verifactuRequerimiento`): the records generated in a
 * period, sent with the request's reference through `RequerimientoSOAP`, in messages of up to 1,000
 * records under the same flow control, the last one marked `FinRequerimiento=S`.
 */
export const requerimientoModel = defineModel({
  name: 'VerifactuRequerimiento',
  table: 'verifactu_requerimientos',
  alias: 'verifacturequerimientos',
  readOnlyResource: true,
  fields: {
    id: f.serial(),
    idempresa: f.integer({ notNull: true, references: f.ref('verifactu_empresas', 'idempresa', 'CASCADE') }),
    refrequerimiento: f.string(18, { notNull: true }),
    desde: f.date({ notNull: true }),
    hasta: f.date({ notNull: true }),
    /** `pendiente` while records are left to send, `enviado` once the last message was answered, `sinregistros` when the period has none. */
    estado: f.string(12, { notNull: true, default: 'pendiente', values: ['pendiente', 'enviado', 'sinregistros'] }),
    /** The last record sent (records go in generation order), and the messages answered. */
    ultimoregistro: f.integer({ notNull: true, default: 0 }),
    mensajes: f.integer({ notNull: true, default: 0 }),
    fecha: f.timestamp({ initial: now }),
  },
  indexes: [['idempresa', 'estado', 'id']],
});
