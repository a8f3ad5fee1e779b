import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';
import { checkFilled, type Errors } from '../../models/record-rules.ts';

/**
 * The accounting's reference tables: journals, predefined entry concepts, special-account roles and
 * VAT settlement periods. Columns, keys and foreign keys are the reference installation's tables
 * (Core/Table/*.xml of the established system).
 */

/**
 * Journals (table `diarios`). The reference declares `iddiario` a plain integer key; here it is a
 * serial, so a client may give the number or have the next one.
 */
export const diarioModel = defineModel({
  name: 'Diario',
  table: 'diarios',
  fields: {
    descripcion: f.string(100, { notNull: true }),
    iddiario: f.serial(),
  },
  validate(values) {
    const errors: Errors = {};
    checkFilled(errors, values, 'descripcion');
    return errors;
  },
});

/** Predefined concepts of entry lines (table `conceptos_partidas`); an empty code gets the next number. */
export const conceptoPartidaModel = defineModel({
  name: 'ConceptoPartida',
  table: 'conceptos_partidas',
  fields: {
    codconcepto: f.string(6, { primary: true, generatedCode: true }),
    descripcion: f.string(255, { notNull: true }),
  },
  validate(values) {
    const errors: Errors = {};
    checkFilled(errors, values, 'descripcion');
    return errors;
  },
});

/** Roles an account can play in the automatic entries (table `cuentasesp`): CLIENT, PROVEE, IVAREP ... */
export const cuentaEspecialModel = defineModel({
  name: 'CuentaEspecial',
  table: 'cuentasesp',
  fields: {
    codcuentaesp: f.string(6, { primary: true }),
    descripcion: f.string(255, { notNull: true }),
  },
  validate(values) {
    const errors: Errors = {};
    checkFilled(errors, values, 'descripcion');
    return errors;
  },
});

/** VAT settlement periods (table `regularizacionimpuestos`); a locked one freezes the entries of its dates. */
export const regularizacionImpuestoModel = defineModel({
  name: 'RegularizacionImpuesto',
  table: 'regularizacionimpuestos',
  fields: {
    bloquear: f.boolean({ default: true }),
    codejercicio: f.string(4, { notNull: true, references: f.ref('ejercicios', 'codejercicio', 'CASCADE') }),
    codsubcuentaacr: f.string(15),
    codsubcuentadeu: f.string(15),
    fechaasiento: f.date(),
    fechafin: f.date({ notNull: true }),
    fechainicio: f.date({ notNull: true }),
    idasiento: f.integer({ references: f.ref('asientos', 'idasiento', 'SET NULL') }),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    idregiva: f.serial(),
    idsubcuentaacr: f.integer({ references: f.ref('subcuentas', 'idsubcuenta', 'RESTRICT') }),
    idsubcuentadeu: f.integer({ references: f.ref('subcuentas', 'idsubcuenta', 'RESTRICT') }),
    periodo: f.string(8, { notNull: true }),
  },
});
