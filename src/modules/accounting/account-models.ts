import type { DbExecutor } from '../../db/database.ts';
import { defineModel, type Values } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';
import { current, hasText, num, type Errors } from '../../models/record-rules.ts';
import { validationError } from '../../errors.ts';
import { expandSubaccountCode, openExercise } from './ledger.ts';

/**
 * The chart of accounts of each fiscal year: accounts (`cuentas`, a tree through `parent_idcuenta`)
 * and their sub-accounts (`subcuentas`, the level entries post to). Changes inside a closed year are
 * refused (`exercise-closed`).
 */

/** A text the reference requires on every save although its column is nullable. */
function requireText(errors: Errors, values: Values, existing: unknown, field: string): void {
  if (existing ? values[field] !== undefined && !hasText(values[field]) : !hasText(values[field])) errors[field] = 'required';
}

interface AccountRow {
  idcuenta: number;
  codcuenta: string;
}

/** The account `idcuenta` when it belongs to `codejercicio`, else the account `codcuenta` of that year. */
async function findAccount(db: DbExecutor, codejercicio: string, idcuenta: unknown, codcuenta: unknown): Promise<AccountRow | undefined> {
  const query = () => db.selectFrom('cuentas').select(['idcuenta', 'codcuenta']).where('codejercicio', '=', codejercicio);
  let row = typeof idcuenta === 'number' ? await query().where('idcuenta', '=', idcuenta).executeTakeFirst() : undefined;
  if (!row && hasText(codcuenta)) row = await query().where('codcuenta', '=', codcuenta.trim()).executeTakeFirst();
  return row ? { idcuenta: Number(row.idcuenta), codcuenta: String(row.codcuenta) } : undefined;
}

/** Accounts (table `cuentas`), unique per code and year. */
export const cuentaModel = defineModel({
  name: 'Cuenta',
  table: 'cuentas',
  fields: {
    codcuenta: f.string(10, { notNull: true }),
    codcuentaesp: f.string(6, { references: f.ref('cuentasesp', 'codcuentaesp', 'SET NULL') }),
    codejercicio: f.string(4, { notNull: true, references: f.ref('ejercicios', 'codejercicio', 'CASCADE') }),
    debe: f.double(),
    descripcion: f.string(255),
    haber: f.double(),
    idcuenta: f.serial(),
    parent_codcuenta: f.string(10),
    parent_idcuenta: f.integer({ references: f.ref('cuentas', 'idcuenta', 'CASCADE') }),
    saldo: f.double(),
  },
  unique: [['codcuenta', 'codejercicio']],
  validate(values, existing) {
    const errors: Errors = {};
    requireText(errors, values, existing, 'descripcion');
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      if (typeof values.codcuenta === 'string') values.codcuenta = values.codcuenta.trim();
      const row = current(values, existing);
      await openExercise(db, row.codejercicio);
      // An account is never its own parent.
      if (row.parent_idcuenta !== null && row.parent_idcuenta !== undefined && row.parent_idcuenta === row.idcuenta) values.parent_idcuenta = null;
      if (hasText(row.parent_codcuenta) && row.parent_codcuenta === row.codcuenta) values.parent_codcuenta = null;
      const parentOf = current(values, existing);
      if ((parentOf.parent_idcuenta !== null && parentOf.parent_idcuenta !== undefined) || hasText(parentOf.parent_codcuenta)) {
        // Either half of the parent completes the other, within the same year.
        const parent = await findAccount(db, String(row.codejercicio), parentOf.parent_idcuenta, parentOf.parent_codcuenta);
        values.parent_idcuenta = parent?.idcuenta ?? null;
        values.parent_codcuenta = parent?.codcuenta ?? null;
      }
    },
    async beforeDelete({ db, existing }) {
      await openExercise(db, existing.codejercicio);
    },
  },
});

/**
 * Sub-accounts (table `subcuentas`): the code is digits, exactly as long as its year's
 * `longsubcuenta` (a new code may be written `43.1`, padded to that length); the account is found
 * by id or by code within the year and both are stored; `saldo` is `debe - haber`.
 */
export const subcuentaModel = defineModel({
  name: 'Subcuenta',
  table: 'subcuentas',
  fields: {
    codcuenta: f.string(10, { notNull: true }),
    codcuentaesp: f.string(6, { references: f.ref('cuentasesp', 'codcuentaesp', 'SET NULL') }),
    codejercicio: f.string(4, { notNull: true, references: f.ref('ejercicios', 'codejercicio', 'CASCADE') }),
    codsubcuenta: f.string(15, { notNull: true }),
    debe: f.double({ notNull: true, default: 0 }),
    descripcion: f.string(255, { notNull: true }),
    haber: f.double({ notNull: true, default: 0 }),
    idcuenta: f.integer({ notNull: true, references: f.ref('cuentas', 'idcuenta', 'CASCADE') }),
    idsubcuenta: f.serial(),
    saldo: f.double({ notNull: true, default: 0 }),
  },
  unique: [['codsubcuenta', 'codejercicio']],
  // A role's first sub-account (posting/chart.ts) without reading all of its account's.
  indexes: [['idcuenta', 'codsubcuenta']],
  validate(values, existing) {
    const errors: Errors = {};
    requireText(errors, values, existing, 'descripcion');
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      const exercise = await openExercise(db, current(values, existing).codejercicio);
      if (!exercise) return; // a missing or unknown year is reported as such
      if (typeof values.codsubcuenta === 'string') {
        values.codsubcuenta = existing ? values.codsubcuenta.trim() : expandSubaccountCode(values.codsubcuenta, exercise.longsubcuenta);
      }
      const row = current(values, existing);
      const code = String(row.codsubcuenta ?? '');
      if (!/^[0-9]+$/.test(code)) throw validationError({ codsubcuenta: 'invalid-code' });
      if (code.length !== exercise.longsubcuenta) throw validationError({ codsubcuenta: 'out-of-range' });
      if (!existing || values.idcuenta !== undefined || values.codcuenta !== undefined || values.codejercicio !== undefined) {
        const account = await findAccount(db, exercise.codejercicio, row.idcuenta, row.codcuenta);
        if (!account) throw validationError({ [row.idcuenta === undefined ? 'codcuenta' : 'idcuenta']: 'not-found' });
        values.idcuenta = account.idcuenta;
        values.codcuenta = account.codcuenta;
      }
      values.saldo = num(row.debe) - num(row.haber);
    },
    async beforeDelete({ db, existing }) {
      await openExercise(db, existing.codejercicio);
    },
  },
});
