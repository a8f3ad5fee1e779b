import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/**
 * A VAT period settled (`liquidacionesiva`, docs/tax-forms.md): the return as it was settled, its
 * result, what it carries to the next period, and the reference's lock row and entry it made.
 * Written by `liquidarIVA`, removed by undoing it; read-only otherwise.
 */
export const vatSettlementModel = defineModel({
  name: 'LiquidacionIva',
  table: 'liquidacionesiva',
  readOnlyResource: true,
  fields: {
    idliquidacion: f.serial(),
    idempresa: f.integer({ notNull: true, references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    codejercicio: f.string(4, { notNull: true }),
    /** The calendar year of the period (the exercise's), and the period: `1T`-`4T` or `01`-`12`. */
    anio: f.integer({ notNull: true }),
    periodo: f.string(2, { notNull: true }),
    desde: f.date({ notNull: true }),
    hasta: f.date({ notNull: true }),
    /** Box 71: to pay (positive) or to carry forward (negative). */
    resultado: f.double({ notNull: true, default: 0 }),
    /** What the next period's box 110 starts from: the still pending (87) plus a negative result. */
    acompensar: f.double({ notNull: true, default: 0 }),
    casillas: f.json(),
    /** The reference's settlement row (`regularizacionimpuestos`, locked) and its entry. */
    idregiva: f.integer(),
    idasiento: f.integer(),
    creado: f.timestamp({ initial: now, readOnly: true }),
  },
  unique: [['idempresa', 'anio', 'periodo']],
});
