import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

export const TRANSFER_STATES = ['borrador', 'generada', 'enviada', 'pagada'] as const;
export const PAIN_001_VERSIONS = ['001.03', '001.09'] as const;
/** The versions by the message's full name, as banks and the EPC write them (`pain.001.001.0x`). */
const PAIN_001_NAMES = Object.fromEntries(PAIN_001_VERSIONS.map((version) => [`pain.001.${version}`, version]));

/**
 * A SEPA credit-transfer order to suppliers (`transferenciassepa`, docs/banking.md): the unpaid
 * supplier receipts due by `vencimientohasta`, paid from the company bank account `codcuenta` on
 * `fechaejecucion`. Built by `POST /api/3/transferenciasepa`; its payments are `pagotransferencia` rows.
 */
export const transferModel = defineModel({
  name: 'TransferenciaSepa',
  table: 'transferenciassepa',
  fields: {
    idtransferencia: f.serial(),
    codcuenta: f.string(10, { notNull: true, references: f.ref('cuentasbanco', 'codcuenta', 'RESTRICT') }),
    idempresa: f.integer({ readOnly: true }),
    descripcion: f.string(100),
    fechaejecucion: f.date({ notNull: true }),
    vencimientohasta: f.date(),
    /** The pain.001 version of its file: `001.0x`, or in full (`pain.001.001.0x`), stored short. */
    version: f.string(10, { notNull: true, default: '001.03', values: PAIN_001_VERSIONS, aliases: PAIN_001_NAMES }),
    estado: f.string(10, { notNull: true, default: 'borrador', values: TRANSFER_STATES }),
    total: f.double({ readOnly: true, default: 0 }),
    numrecibos: f.integer({ readOnly: true, default: 0 }),
    /** The day the bank executed it (`pagarTransferenciaSepa`): its receipts were paid on it. */
    fechapago: f.date({ readOnly: true }),
    creado: f.timestamp({ initial: now, readOnly: true }),
  },
});

/** A supplier receipt in a transfer order (read-only), as its payment was fixed when the order was built. A receipt is in one order at most. */
export const transferPaymentModel = defineModel({
  name: 'PagoTransferencia',
  table: 'transferenciassepa_recibos',
  readOnlyResource: true,
  fields: {
    id: f.serial(),
    idtransferencia: f.integer({ notNull: true, references: f.ref('transferenciassepa', 'idtransferencia', 'CASCADE') }),
    idrecibo: f.integer({ notNull: true, references: f.ref('recibospagosprov', 'idrecibo', 'CASCADE') }),
    codproveedor: f.string(10, { notNull: true }),
    nombre: f.string(100),
    importe: f.double({ notNull: true }),
    vencimiento: f.date(),
    iban: f.string(34, { notNull: true }),
    bic: f.string(11),
    endtoend: f.string(35, { notNull: true }),
    concepto: f.string(140),
  },
  unique: [['idrecibo']],
});
