import { defineModel } from '../../models/define-model.ts';
import { f, RATE_RANGE } from '../../models/fields.ts';
import { codeCharacters, firstFreeCode } from '../../models/derived-code.ts';
import { checkCode, codeOf, hasText, refuseBadBankDetails, type Errors } from '../../models/record-rules.ts';
import { fillDefaults, refuseDeletingDefault, settingsIn } from '../settings/index.ts';

const EXPIRATION_UNITS = new Set(['days', 'weeks', 'months', 'years']);

/** The reference's payment method codes by preference: the description's first 4 characters, then those and 2..9. */
function paymentCodes(descripcion: unknown): string[] {
  const prefix = codeCharacters(descripcion).slice(0, 4);
  return prefix ? [prefix, ...[2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${prefix}${n}`)] : [];
}

/** Currencies with their rates per euro (table `divisas`), facturascripts-model.md 2.2. */
export const divisaModel = defineModel({
  name: 'Divisa',
  table: 'divisas',
  fields: {
    coddivisa: f.string(3, { primary: true }),
    codiso: f.string(5),
    descripcion: f.string(100),
    simbolo: f.string(10, { initial: () => '?' }),
    tasaconv: f.double({ notNull: true, initial: () => 1, ...RATE_RANGE }),
    tasaconvcompra: f.double({ initial: () => 1, ...RATE_RANGE }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'coddivisa', /^[A-Z0-9]{1,3}$/i);
    if (typeof values.codiso === 'string' && values.codiso !== '' && !/^[A-Z0-9]{1,5}$/i.test(values.codiso)) errors.codiso = 'invalid-code';
    return errors;
  },
  hooks: {
    async beforeDelete({ db, existing }) {
      await refuseDeletingDefault(db, ['coddivisa'], existing.coddivisa);
    },
  },
});

/** Company bank accounts (table `cuentasbanco`), facturascripts-model.md 2.2. */
export const cuentaBancoModel = defineModel({
  name: 'CuentaBanco',
  table: 'cuentasbanco',
  fields: {
    activa: f.boolean({ default: true }),
    codcuenta: f.string(10, { primary: true }),
    codsubcuenta: f.string(15),
    codsubcuentagasto: f.string(15),
    descripcion: f.string(100, { notNull: true }),
    iban: f.string(34),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    sufijosepa: f.string(3),
    swift: f.string(11),
  },
  hooks: {
    // Its IBAN and BIC as the customers' and suppliers' accounts are checked; `sufijosepa` is the
    // SEPA creditor identifier's three-character business code (docs/banking.md).
    beforeSave: ({ db, values }) => refuseBadBankDetails(values, async () => (await settingsIn(db)).validate_iban,
      typeof values.sufijosepa === 'string' && values.sufijosepa !== '' && !/^[A-Z0-9]{3}$/i.test(values.sufijosepa) ? { sufijosepa: 'invalid-value' } : {}),
  },
});

/** Payment methods with their expiration term (table `formaspago`), facturascripts-model.md 2.2. */
export const formaPagoModel = defineModel({
  name: 'FormaPago',
  table: 'formaspago',
  fields: {
    activa: f.boolean({ default: true }),
    codcuentabanco: f.string(10, { references: f.ref('cuentasbanco', 'codcuenta', 'SET NULL') }),
    codpago: f.string(10, { primary: true, derivedCode: true }),
    descripcion: f.string(100, { notNull: true }),
    domiciliado: f.boolean({ initial: () => false }),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    imprimir: f.boolean({ default: true }),
    pagado: f.boolean({ default: false }),
    plazovencimiento: f.integer({ initial: () => 0 }),
    tipovencimiento: f.string(10, { initial: () => 'days' }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codpago', codeOf(10));
    if (typeof values.plazovencimiento === 'number' && values.plazovencimiento < 0) errors.plazovencimiento = 'negative';
    if (typeof values.tipovencimiento === 'string' && !EXPIRATION_UNITS.has(values.tipovencimiento)) errors.tipovencimiento = 'invalid-value';
    return errors;
  },
  hooks: {
    async beforeSave({ db, dialect, values, existing }) {
      if (existing) return;
      // The reference: a payment method without company is the default company's.
      await fillDefaults(db, values, ['idempresa']);
      if (!hasText(values.codpago)) values.codpago = await firstFreeCode(db, dialect, { table: 'formaspago', column: 'codpago' }, paymentCodes(values.descripcion), 10);
    },
    async beforeDelete({ db, existing }) {
      await refuseDeletingDefault(db, ['codpago'], existing.codpago);
    },
  },
});
