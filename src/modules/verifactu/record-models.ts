import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/** What the AEAT said of a record (VERI*FACTU mode); `pendiente` until it is sent, and in NO VERI*FACTU mode. */
export const RECORD_STATES = ['pendiente', 'correcto', 'aceptadoconerrores', 'incorrecto'] as const;

/**
 * The invoicing records (registros de facturación) of every company, in generation order per
 * company: append-only (db/append-only.ts), read-only through the API. The columns are the
 * record's identity and chain as hashed (strings exactly as the XML writes them); `registro` keeps
 * the whole record, in schema order, from which its XML is written (xml-document.ts).
 */
export const registroVerifactuModel = defineModel({
  name: 'RegistroVerifactu',
  table: 'registros_verifactu',
  alias: 'registroverifactus',
  readOnlyResource: true,
  // What the AEAT answers is written once it is known (sending/store-answer.ts); the record itself never changes.
  appendOnly: { mutable: ['estado', 'idenvio', 'csv', 'codigoerror', 'descripcionerror'] },
  fields: {
    id: f.serial(),
    idempresa: f.integer({ notNull: true, references: f.ref('verifactu_empresas', 'idempresa', 'RESTRICT') }),
    tipo: f.string(10, { notNull: true, values: ['alta', 'anulacion'] }),
    idfactura: f.integer({ notNull: true, references: f.ref('facturascli', 'idfactura', 'RESTRICT') }),
    nifemisor: f.string(9, { notNull: true }),
    numserie: f.string(60, { notNull: true }),
    /** dd-mm-yyyy, as hashed. */
    fechaexpedicion: f.string(10, { notNull: true }),
    tipofactura: f.string(2),
    cuotatotal: f.string(20),
    importetotal: f.string(20),
    fechahorahuso: f.string(25, { notNull: true }),
    /** The previous record of the company's chain: its id and Huella (none for the first). */
    idanterior: f.integer(),
    huellaanterior: f.string(64),
    huella: f.string(64, { notNull: true }),
    modo: f.string(12, { notNull: true }),
    entorno: f.string(12, { notNull: true }),
    estado: f.string(20, { notNull: true, default: 'pendiente', values: RECORD_STATES }),
    qr: f.string(500),
    /** A subsanación: the record it corrects (an alta of the same invoice the AEAT rejected or accepted with errors). */
    idsubsanado: f.integer(),
    /** The message that carried it, the AEAT's CSV of that message, and the AEAT's error for this record. */
    idenvio: f.integer(),
    csv: f.string(64),
    codigoerror: f.integer(),
    descripcionerror: f.string(1500),
    registro: f.json({ notNull: true, hidden: true }),
    /** NO VERI*FACTU: the record's XML with its XAdES signature (signing/sign-record.ts), as kept and exported. */
    firmado: f.text({ hidden: true }),
    creationdate: f.timestamp({ initial: now }),
  },
  // The sender's queue (`estado = pendiente`, VERI*FACTU mode: NO VERI*FACTU records stay pending for good) by company.
  indexes: [['idempresa', 'id'], ['idfactura', 'id'], ['estado', 'modo', 'idempresa', 'id']],
});

/**
 * The head of each company's chain (service bookkeeping): its row lock serialises record generation
 * across instances, and it carries what the next record links to, so that appending reads nothing
 * else.
 */
export const chainHeadModel = defineModel({
  name: 'VerifactuCadena',
  table: 'verifactu_cadenas',
  internal: true,
  fields: {
    idempresa: f.integer({ primary: true, references: f.ref('verifactu_empresas', 'idempresa', 'CASCADE') }),
    registros: f.integer({ notNull: true, default: 0 }),
    idultimo: f.integer(),
    nifemisor: f.string(9),
    numserie: f.string(60),
    fechaexpedicion: f.string(10),
    huella: f.string(64),
    fechahorahuso: f.string(25),
    /** The head of the company's event log (NO VERI*FACTU), chained apart from the records. */
    eventos: f.integer({ notNull: true, default: 0 }),
    idultimoevento: f.integer(),
    tipoevento: f.string(2),
    fechaevento: f.string(25),
    huellaevento: f.string(64),
  },
});
