import { defineModel, type Values } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { current, hasText, type Errors } from '../../models/record-rules.ts';
import { validationError } from '../../errors.ts';
import { exerciseCovering } from '../fiscal/index.ts';
import { moveBalances } from './balances.ts';
import { chartLock, nextEntryNumber } from './entry-number.ts';
import { deleteEntryLines } from './write-entry.ts';
import { insideLockedSettlement, openExercise, subaccountByCode, subaccountById } from './ledger.ts';

/**
 * Accounting entries (`asientos`) and their lines (`partidas`). An entry belongs to one open fiscal
 * year for good, is numbered within it, and cannot change (nor its lines be added through it) once
 * it is neither editable nor was; a locked VAT settlement freezes the entries of its dates. Lines
 * keep their sub-account's debit, credit and balance up to date.
 */

function requireConcept(values: Values, existing: unknown): Errors {
  const concepto = values.concepto;
  return (existing ? concepto !== undefined && !hasText(concepto) : !hasText(concepto)) ? { concepto: 'required' } : {};
}

const isTrue = (value: unknown) => value === true || value === 1;

/** Accounting entries (table `asientos`). */
export const asientoModel = defineModel({
  name: 'Asiento',
  table: 'asientos',
  fields: {
    canal: f.integer(),
    codejercicio: f.string(4, { notNull: true, references: f.ref('ejercicios', 'codejercicio', 'RESTRICT') }),
    concepto: f.string(255),
    documento: f.string(50),
    editable: f.boolean({ notNull: true, initial: () => true }),
    fecha: f.date({ notNull: true, initial: today }),
    idasiento: f.serial(),
    iddiario: f.integer({ references: f.ref('diarios', 'iddiario', 'SET NULL') }),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    importe: f.double({ notNull: true, default: 0 }),
    // Given on creation as the year's next number, whatever the client sent (the reference's rule).
    numero: f.integer({ notNull: true, initial: () => 0 }),
    operacion: f.string(1),
  },
  indexes: [['codejercicio', 'numero']],
  validate: requireConcept,
  hooks: {
    async beforeSave({ db, dialect, values, existing }) {
      const entry = current(values, existing);
      if (!existing && !hasText(entry.codejercicio)) {
        // The year comes from the date, within the company when one is given.
        const found = await exerciseCovering(db, typeof entry.idempresa === 'number' ? entry.idempresa : null, String(entry.fecha));
        if (!found) throw validationError({ codejercicio: 'required' });
        values.codejercicio = found.codejercicio;
      }
      const codejercicio = String(values.codejercicio ?? existing?.codejercicio);
      const exercise = await openExercise(db, codejercicio);
      if (!exercise) return; // the unknown year is reported by its foreign key
      if (existing) {
        if (values.codejercicio !== undefined && values.codejercicio !== existing.codejercicio) throw validationError({ codejercicio: 'read-only' });
        if (values.fecha !== undefined && values.fecha !== existing.fecha) {
          const year = await exerciseCovering(db, exercise.idempresa, String(values.fecha));
          if (year?.codejercicio !== codejercicio) throw validationError({ fecha: 'out-of-range' });
        }
        if (!isTrue(entry.editable) && !isTrue(existing.editable)) throw validationError({ editable: 'locked' });
        // A number changes under the year's entry counter, as entries are numbered: a writer
        // holding it may name its new entry as the year's highest (newestEntryReference).
        if (values.numero !== undefined && Number(values.numero) !== Number(existing.numero)) await chartLock(db, dialect, codejercicio);
      } else {
        values.idempresa ??= exercise.idempresa;
        values.numero = await nextEntryNumber(db, dialect, codejercicio);
      }
      if (await insideLockedSettlement(db, dialect, current(values, existing).fecha, exercise.idempresa)) throw validationError({ fecha: 'locked' });
    },
    async beforeDelete({ db, dialect, existing }) {
      const exercise = await openExercise(db, existing.codejercicio);
      if (exercise && (await insideLockedSettlement(db, dialect, existing.fecha, exercise.idempresa))) throw validationError({ fecha: 'locked' });
      if (!isTrue(existing.editable)) throw validationError({ editable: 'locked' });
      // The lines go first, so that their sub-accounts' balances follow.
      await deleteEntryLines(db, [Number(existing.idasiento)]);
    },
  },
});

/** Lines of accounting entries (table `partidas`). */
export const partidaModel = defineModel({
  name: 'Partida',
  table: 'partidas',
  fields: {
    baseimponible: f.double({ notNull: true, default: 0 }),
    cifnif: f.string(30),
    codcontrapartida: f.string(15),
    coddivisa: f.string(3),
    codserie: f.string(4),
    codsubcuenta: f.string(15, { notNull: true }),
    concepto: f.string(255),
    debe: f.double({ notNull: true, default: 0 }),
    documento: f.string(50),
    factura: f.string(15),
    haber: f.double({ notNull: true, default: 0 }),
    idasiento: f.integer({ notNull: true, references: f.ref('asientos', 'idasiento', 'CASCADE') }),
    idcontrapartida: f.integer({ references: f.ref('subcuentas', 'idsubcuenta', 'SET NULL') }),
    idpartida: f.serial(),
    idsubcuenta: f.integer({ notNull: true, references: f.ref('subcuentas', 'idsubcuenta', 'RESTRICT') }),
    iva: f.double(),
    orden: f.integer({ notNull: true, default: 0 }),
    punteada: f.boolean({ notNull: true, default: false }),
    recargo: f.double({ notNull: true, default: 0 }),
    saldo: f.double({ notNull: true, default: 0 }),
    tasaconv: f.double({ notNull: true, default: 0, initial: () => 1 }),
  },
  validate: requireConcept,
  hooks: {
    async beforeSave({ db, values, existing }) {
      for (const name of ['codsubcuenta', 'codcontrapartida']) if (typeof values[name] === 'string') values[name] = (values[name] as string).trim();
      const line = current(values, existing);
      const entry = await db.selectFrom('asientos').select('codejercicio').where('idasiento', '=', line.idasiento as number).executeTakeFirst();
      if (!entry) return; // reported by the foreign key
      const codejercicio = String(entry.codejercicio);
      // The sub-account: its id from its code when the id is missing or the code changes ...
      const codeChanged = existing && values.codsubcuenta !== undefined && values.codsubcuenta !== existing.codsubcuenta && values.idsubcuenta === undefined;
      if (hasText(line.codsubcuenta) && (codeChanged || line.idsubcuenta === undefined || line.idsubcuenta === null)) {
        const found = await subaccountByCode(db, codejercicio, line.codsubcuenta);
        if (!found) throw validationError({ codsubcuenta: 'not-found' });
        values.idsubcuenta = found.idsubcuenta;
      } else if (!hasText(line.codsubcuenta) && typeof line.idsubcuenta === 'number') {
        // ... and its code from its id when only the id is given.
        const found = await subaccountById(db, line.idsubcuenta);
        if (found) values.codsubcuenta = found.codsubcuenta;
      }
      const counterpartChanged = existing && values.codcontrapartida !== undefined && values.codcontrapartida !== existing.codcontrapartida && values.idcontrapartida === undefined;
      if (hasText(line.codcontrapartida) && (counterpartChanged || line.idcontrapartida === undefined || line.idcontrapartida === null)) {
        values.idcontrapartida = (await subaccountByCode(db, codejercicio, line.codcontrapartida))?.idsubcuenta ?? null;
      }
    },
    async afterSave({ db, record, existing }) {
      await moveBalances(db, [record], existing ? [existing] : []);
    },
    async afterDelete({ db, existing }) {
      await moveBalances(db, [], [existing]);
    },
  },
});
