import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { checkCode, checkFilled, codeOf, current, type Errors } from '../../models/record-rules.ts';

const SERIE_TYPES = new Set(['R', 'S']);

/** Document series (table `series`), facturascripts-model.md 2.2. */
export const serieModel = defineModel({
  name: 'Serie',
  table: 'series',
  fields: {
    canal: f.integer(),
    codserie: f.string(4, { primary: true, generatedCode: true }),
    descripcion: f.string(100),
    iddiario: f.integer(),
    siniva: f.boolean({ notNull: true, default: false }),
    tipo: f.string(4),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codserie', codeOf(4));
    if (typeof values.tipo === 'string' && values.tipo !== '' && !SERIE_TYPES.has(values.tipo)) errors.tipo = 'invalid-value';
    return errors;
  },
});

/** Fiscal years per company (table `ejercicios`), facturascripts-model.md 2.2 and 3.7. */
export const ejercicioModel = defineModel({
  name: 'Ejercicio',
  table: 'ejercicios',
  fields: {
    codejercicio: f.string(4, { primary: true }),
    estado: f.string(15, { notNull: true, initial: () => 'ABIERTO' }),
    fechafin: f.date({ notNull: true, initial: (clock) => `${today(clock).slice(0, 4)}-12-31` }),
    fechainicio: f.date({ notNull: true, initial: (clock) => `${today(clock).slice(0, 4)}-01-01` }),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    longsubcuenta: f.integer({ initial: () => 10 }),
    nombre: f.string(100, { notNull: true }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codejercicio', codeOf(4));
    checkFilled(errors, values, 'nombre');
    const length = values.longsubcuenta;
    if (typeof length === 'number' && (length < 4 || length > 15)) errors.longsubcuenta = 'out-of-range';
    const { fechainicio, fechafin } = current(values, existing);
    if (typeof fechainicio === 'string' && typeof fechafin === 'string' && fechainicio > fechafin) errors.fechainicio = 'invalid-value';
    return errors;
  },
});
