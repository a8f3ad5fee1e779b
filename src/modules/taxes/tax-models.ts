import { defineModel, type SaveContext } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';
import { codeLetters, firstFreeCode } from '../../models/derived-code.ts';
import { checkCode, codeOf, current, hasText, type Errors } from '../../models/record-rules.ts';
import { refuseDeletingDefault } from '../settings/index.ts';

const SUBACCOUNTS = ['codsubcuentarep', 'codsubcuentarepintra', 'codsubcuentarepre', 'codsubcuentasop', 'codsubcuentasopintra', 'codsubcuentasopre'];

const isPercentage = (value: unknown) => typeof value !== 'number' || (value >= 0 && value <= 100);

/**
 * The reference's codes of a new tax or retention left without one: 3 letters of the description
 * and the whole percentage (`IVA21`), then 4 letters and the percentage, then a number.
 */
async function deriveRateCode({ db, dialect, model, values }: SaveContext, rateField: string): Promise<void> {
  const key = model.primaryKey;
  if (hasText(values[key])) return;
  const letters = codeLetters(values.descripcion);
  const rate = typeof values[rateField] === 'number' ? String(Math.trunc(values[rateField])) : '';
  const candidates = letters ? [letters.slice(0, 3) + rate, letters.slice(0, 4) + rate] : [];
  values[key] = await firstFreeCode(db, dialect, { table: model.table, column: key }, candidates, 10);
}

/** Taxes: VAT rate and surcharge (table `impuestos`), facturascripts-model.md 2.2. */
export const impuestoModel = defineModel({
  name: 'Impuesto',
  table: 'impuestos',
  fields: {
    activo: f.boolean({ default: true }),
    codimpuesto: f.string(10, { primary: true, derivedCode: true }),
    codsubcuentarep: f.string(15),
    codsubcuentarepintra: f.string(15),
    codsubcuentarepre: f.string(15),
    codsubcuentasop: f.string(15),
    codsubcuentasopintra: f.string(15),
    codsubcuentasopre: f.string(15),
    descripcion: f.string(50),
    operacion: f.string(20),
    tipo: f.integer({ default: 1 }),
    iva: f.double({ notNull: true, initial: () => 0 }),
    recargo: f.double({ notNull: true, initial: () => 0 }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codimpuesto', codeOf(10));
    const tax = current(values, existing);
    if (typeof values.tipo === 'number' && values.tipo !== 1 && values.tipo !== 2) errors.tipo = 'invalid-value';
    // Type 2 is a fixed amount per unit, not a percentage.
    if (tax.tipo !== 2) {
      if (!isPercentage(tax.iva)) errors.iva = 'out-of-range';
      if (!isPercentage(tax.recargo)) errors.recargo = 'out-of-range';
    }
    return errors;
  },
  hooks: {
    async beforeSave(ctx) {
      for (const name of SUBACCOUNTS) if (ctx.values[name] === '') ctx.values[name] = null;
      if (!ctx.existing) await deriveRateCode(ctx, 'iva');
    },
    async beforeDelete({ db, existing }) {
      await refuseDeletingDefault(db, ['codimpuesto'], existing.codimpuesto);
    },
  },
});

/** Tax substitutions by country and province (table `impuestoszonas`), facturascripts-model.md 2.2. */
export const impuestoZonaModel = defineModel({
  name: 'ImpuestoZona',
  table: 'impuestoszonas',
  fields: {
    codimpuesto: f.string(10, { notNull: true, references: f.ref('impuestos', 'codimpuesto', 'RESTRICT') }),
    codimpuestosel: f.string(10, { references: f.ref('impuestos', 'codimpuesto', 'RESTRICT') }),
    codisopro: f.string(10),
    codpais: f.string(20),
    excepcioniva: f.string(20),
    id: f.serial(),
    prioridad: f.integer({ initial: () => 1 }),
  },
});

/** Withholdings such as IRPF (table `retenciones`), facturascripts-model.md 2.2. */
export const retencionModel = defineModel({
  name: 'Retencion',
  table: 'retenciones',
  fields: {
    activa: f.boolean({ default: true }),
    codretencion: f.string(10, { primary: true, derivedCode: true }),
    codsubcuentaret: f.string(15),
    codsubcuentaacr: f.string(15),
    descripcion: f.string(50),
    porcentaje: f.percent({ notNull: true }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codretencion', codeOf(10));
    const rate = values.porcentaje;
    if (typeof rate === 'number' && (Math.trunc(rate) < 1 || rate > 100)) errors.porcentaje = 'out-of-range';
    return errors;
  },
  hooks: {
    async beforeSave(ctx) {
      if (!ctx.existing) await deriveRateCode(ctx, 'porcentaje');
    },
  },
});

/** Fiscal identifier types: NIF, CIF, VAT... (table `idsfiscales`), facturascripts-model.md 2.2. */
export const identificadorFiscalModel = defineModel({
  name: 'IdentificadorFiscal',
  table: 'idsfiscales',
  fields: {
    codeid: f.string(2),
    tipoidfiscal: f.string(25, { primary: true }),
    validar: f.boolean({ default: false }),
  },
  unique: [['tipoidfiscal', 'codeid']],
});
