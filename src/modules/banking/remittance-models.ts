import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

export const REMITTANCE_STATES = ['borrador', 'generada', 'enviada', 'cobrada'] as const;
export const PAIN_008_VERSIONS = ['001.02', '001.08'] as const;
/** The versions by the message's full name, as banks and the EPC write them (`pain.008.001.0x`). */
const PAIN_008_NAMES = Object.fromEntries(PAIN_008_VERSIONS.map((version) => [`pain.008.${version}`, version]));

/**
 * A SEPA direct-debit remittance (`remesassepa`, docs/banking.md): the unpaid direct-debit
 * receipts due by `vencimientohasta`, collected into the company bank account `codcuenta` on
 * `fechacargo`. Built by `POST /api/3/remesasepa`; its receipts are `reciboremesa` rows.
 */
export const remittanceModel = defineModel({
  name: 'RemesaSepa',
  table: 'remesassepa',
  fields: {
    idremesa: f.serial(),
    codcuenta: f.string(10, { notNull: true, references: f.ref('cuentasbanco', 'codcuenta', 'RESTRICT') }),
    idempresa: f.integer({ readOnly: true }),
    descripcion: f.string(100),
    fechacargo: f.date({ notNull: true }),
    vencimientohasta: f.date(),
    /** The pain.008 version of its file: `001.0x`, or in full (`pain.008.001.0x`), stored short. */
    version: f.string(10, { notNull: true, default: '001.02', values: PAIN_008_VERSIONS, aliases: PAIN_008_NAMES }),
    estado: f.string(10, { notNull: true, default: 'borrador', values: REMITTANCE_STATES }),
    /** The SEPA creditor identifier its file carries (from the company's tax id and the account's `sufijosepa`). */
    identificador: f.string(35, { readOnly: true }),
    total: f.double({ readOnly: true, default: 0 }),
    numrecibos: f.integer({ readOnly: true, default: 0 }),
    /** The day the bank credited it (`cobrarRemesa`): its receipts were paid on it. */
    fechacobro: f.date({ readOnly: true }),
    creado: f.timestamp({ initial: now, readOnly: true }),
  },
});

/**
 * A receipt in a remittance (read-only): what its collection carries, fixed when the remittance was
 * built. A receipt stands in one remittance at most (the key on `idrecibo` and `vigente`); once
 * returned it keeps its row here, no longer standing.
 */
export const remittanceReceiptModel = defineModel({
  name: 'ReciboRemesa',
  table: 'remesassepa_recibos',
  readOnlyResource: true,
  fields: {
    id: f.serial(),
    idremesa: f.integer({ notNull: true, references: f.ref('remesassepa', 'idremesa', 'CASCADE') }),
    idrecibo: f.integer({ notNull: true, references: f.ref('recibospagoscli', 'idrecibo', 'CASCADE') }),
    codcliente: f.string(10, { notNull: true }),
    nombre: f.string(100),
    importe: f.double({ notNull: true }),
    vencimiento: f.date(),
    iban: f.string(34, { notNull: true }),
    bic: f.string(11),
    mandato: f.string(35, { notNull: true }),
    fmandato: f.date({ notNull: true }),
    /** `FRST` (the mandate's first collection) or `RCUR`. */
    secuencia: f.string(4, { notNull: true }),
    endtoend: f.string(35, { notNull: true }),
    concepto: f.string(140),
    /** True while the receipt stands in this remittance; NULL once the bank returned it (it may then be presented again in another). */
    vigente: f.boolean({ default: true }),
    /** Paid by the remittance's collection (`cobrarRemesa`); false for one the customer had paid another way: a return leaves that one paid. */
    cobrado: f.boolean({ default: false }),
    /** A return (`devolverReciboRemesa`): its day, the bank's fee and reason (e.g. the SEPA return code `AM04`, `MD06`). */
    fechadevolucion: f.date(),
    gastosdevolucion: f.double({ default: 0 }),
    motivodevolucion: f.string(100),
  },
  unique: [['idrecibo', 'vigente']],
});
