import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/**
 * A bank movement (`movimientosbanco`, docs/banking.md): one line of a company account's statement,
 * imported from a Norma 43 or camt.053 file once however often the file comes (its `huella`, an
 * identity that survives re-import), then matched to what it pays. Read-only but through the
 * import and `conciliarMovimiento`.
 */
export const bankMovementModel = defineModel({
  name: 'MovimientoBanco',
  table: 'movimientosbanco',
  readOnlyResource: true,
  fields: {
    idmovimiento: f.serial(),
    codcuenta: f.string(10, { notNull: true, references: f.ref('cuentasbanco', 'codcuenta', 'RESTRICT') }),
    idempresa: f.integer(),
    fecha: f.date({ notNull: true }),
    fechavalor: f.date({ notNull: true }),
    /** Signed: money in positive, money out negative. */
    importe: f.double({ notNull: true }),
    /** The AEB common concept (`03` direct debits, `04` transfers, `06` remittances, `14` returns, `17` fees ...). */
    concepto: f.string(2),
    conceptopropio: f.string(3),
    documento: f.string(10),
    referencia1: f.string(12),
    referencia2: f.string(16),
    texto: f.text(),
    /** The end-to-end ids the bank reported (space separated): a SEPA collection's or transfer's own reference. */
    endtoend: f.text(),
    mandato: f.string(35),
    acreedor: f.string(35),
    contraparte: f.string(140),
    ibancontraparte: f.string(34),
    /** The bank's own reference of the entry (camt.053 `AcctSvcrRef`). */
    referenciabanco: f.string(35),
    formato: f.string(10),
    /** Its identity: re-importing a statement that holds it adds nothing. */
    huella: f.string(64, { notNull: true }),
    /** What it could pay, best first: `[{tipo, idrecibos?, idremesa?, idtransferencia?, puntuacion, motivos}]` (matching). */
    propuestas: f.json(),
    conciliado: f.boolean({ default: false }),
    fechaconciliacion: f.timestamp(),
    /** What it was matched to: a customer receipt, a remittance or a transfer order; `recibos` every receipt it settled. */
    idrecibo: f.integer(),
    idremesa: f.integer(),
    idtransferencia: f.integer(),
    recibos: f.json(),
    creado: f.timestamp({ initial: now }),
  },
  unique: [['codcuenta', 'huella']],
  indexes: [['codcuenta', 'fecha'], ['conciliado']],
});
