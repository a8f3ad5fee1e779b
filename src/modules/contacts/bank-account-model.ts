import { defineModel, type Model } from '../../models/define-model.ts';
import { f, sortedFields, type Fields } from '../../models/fields.ts';
import { refuseBadBankDetails, type Errors } from '../../models/record-rules.ts';
import { settingsIn } from '../settings/index.ts';

export interface BankAccountSpec {
  name: string;
  table: string;
  /** The owner's key column, table and length (`codcliente` of `clientes`). */
  owner: { field: string; table: string; length: number };
  /** Columns this kind of account has besides the common ones. */
  extra?: Fields;
}

/**
 * A bank account of a customer or supplier (the reference's BankAccount base): `codcuenta` is a
 * number (the next one when left empty); the IBAN passes its ISO 13616 check digits unless the
 * installation's `validate_iban` setting is off, and the SWIFT/BIC has its ISO 9362 shape (empty
 * values pass); the account marked `principal` (the default) is its owner's only main account: the
 * others are unmarked when it is saved. Deleting the owner deletes its accounts.
 */
export function bankAccountModel(spec: BankAccountSpec): Model {
  const { field: owner, table: ownerTable, length } = spec.owner;
  return defineModel({
    name: spec.name,
    table: spec.table,
    fields: sortedFields({
      codcuenta: f.string(10, { primary: true, generatedCode: true }),
      descripcion: f.string(100),
      iban: f.string(34),
      [owner]: f.string(length, { notNull: true, references: f.ref(ownerTable, owner, 'CASCADE') }),
      principal: f.boolean({ initial: () => true }),
      swift: f.string(11),
      ...spec.extra,
    }),
    validate(values, existing) {
      const errors: Errors = {};
      if (!existing && typeof values.codcuenta === 'string' && values.codcuenta !== '' && !/^[0-9]+$/.test(values.codcuenta)) errors.codcuenta = 'invalid-code';
      return errors;
    },
    hooks: {
      beforeSave: ({ db, values }) => refuseBadBankDetails(values, async () => (await settingsIn(db)).validate_iban),
      async afterSave({ db, dialect, record }) {
        if (record.principal !== true) return;
        await db
          .updateTable(spec.table)
          .set({ principal: dialect.boolean(false) })
          .where(owner, '=', record[owner] as string)
          .where('codcuenta', '<>', record.codcuenta as string)
          .execute();
      },
    },
  });
}
