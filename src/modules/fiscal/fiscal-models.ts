import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { validationError } from '../../errors.ts';
import { codeCharacters, firstFreeCode } from '../../models/derived-code.ts';
import { checkCode, checkFilled, codeOf, current, hasText, type Errors } from '../../models/record-rules.ts';
import { fillDefaults, refuseDeletingDefault } from '../settings/index.ts';
import { overlappingExercise } from './exercise-overlap.ts';

const SERIE_TYPES = new Set(['R', 'S']);

const LETTERS = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i));

/** The reference's serie codes by preference: the description's first 1 to 4 characters, then a letter. */
function serieCodes(descripcion: unknown): string[] {
  const text = codeCharacters(descripcion);
  return [...[1, 2, 3, 4].filter((length) => length <= text.length).map((length) => text.slice(0, length)), ...LETTERS];
}

/** Document series (table `series`), facturascripts-model.md 2.2. */
export const serieModel = defineModel({
  name: 'Serie',
  table: 'series',
  fields: {
    canal: f.integer(),
    codserie: f.string(4, { primary: true, derivedCode: true }),
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
  hooks: {
    async beforeSave({ db, dialect, values, existing }) {
      if (!existing && !hasText(values.codserie)) {
        values.codserie = await firstFreeCode(db, dialect, { table: 'series', column: 'codserie' }, serieCodes(values.descripcion), 4);
      }
    },
    async beforeDelete({ db, existing }) {
      await refuseDeletingDefault(db, ['codserie', 'codserierec'], existing.codserie);
    },
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
  hooks: {
    async beforeSave({ db, values, existing }) {
      // The reference: a fiscal year without company is the default company's.
      if (!existing) await fillDefaults(db, values, ['idempresa']);
      // Fiscal years of one company never overlap (the reference checks new ones; changed dates too).
      const year = current(values, existing);
      const moved = !existing || ['fechainicio', 'fechafin', 'idempresa'].some((name) => values[name] !== undefined && values[name] !== existing[name]);
      if (!moved || typeof year.fechainicio !== 'string' || typeof year.fechafin !== 'string') return;
      const idempresa = year.idempresa === null || year.idempresa === undefined ? null : Number(year.idempresa);
      if (await overlappingExercise(db, idempresa, year.fechainicio, year.fechafin, existing ? String(existing.codejercicio) : undefined)) {
        throw validationError({ fechainicio: 'overlapping-exercise', fechafin: 'overlapping-exercise' });
      }
    },
  },
});
