import { defineModel } from '../../models/define-model.ts';
import { f, now, today } from '../../models/fields.ts';
import { current, hasText } from '../../models/record-rules.ts';
import { fillDefaults } from '../settings/index.ts';
import { createMainVariant, syncMainVariant } from './product-variants.ts';

/** Products (table `productos`), columns as the reference (facturascripts-model.md 2.4). */
export const productModel = defineModel({
  name: 'Producto',
  table: 'productos',
  fields: {
    idproducto: f.serial(),
    // Generated over all variants: a product's reference is also its main variant's.
    referencia: f.string(30, { notNull: true, unique: true, generatedCode: { table: 'variantes', column: 'referencia' } }),
    descripcion: f.text(),
    actualizado: f.timestamp({ readOnly: true }),
    bloqueado: f.boolean({ default: false }),
    codfabricante: f.string(8, { references: f.ref('fabricantes', 'codfabricante', 'SET NULL') }),
    codfamilia: f.string(8, { references: f.ref('familias', 'codfamilia', 'SET NULL') }),
    codimpuesto: f.string(10, { references: f.ref('impuestos', 'codimpuesto', 'SET NULL') }),
    codsubcuentacom: f.string(15),
    codsubcuentairpfcom: f.string(15),
    codsubcuentaven: f.string(15),
    excepcioniva: f.string(20),
    fechaalta: f.date({ initial: today }),
    nostock: f.boolean({ default: false }),
    observaciones: f.text(),
    precio: f.double({ default: 0 }),
    publico: f.boolean({ default: false }),
    secompra: f.boolean({ default: true }),
    sevende: f.boolean({ default: true }),
    stockfis: f.double({ default: 0 }),
    tipo: f.string(50),
    ventasinstock: f.boolean({ default: false }),
  },
  validate(values, existing) {
    const errors: Record<string, string> = {};
    if (typeof values.precio === 'number' && values.precio < 0) errors.precio = 'negative';
    // The reference: a VAT exception needs a tax (which must be 0 %, checked against impuestos elsewhere).
    const product = current(values, existing);
    if (hasText(product.excepcioniva) && !hasText(product.codimpuesto)) errors.codimpuesto = 'required';
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing, clock }) {
      values.actualizado = now(clock);
      // The reference: a new product takes the default tax and the installation's `ventasinstock`.
      if (!existing) await fillDefaults(db, values, ['codimpuesto', 'ventasinstock']);
      // The reference: a blocked product is neither sold, bought nor public; nostock zeroes stock.
      if (values.bloqueado === true) Object.assign(values, { publico: false, sevende: false, secompra: false });
      if (values.nostock === true) Object.assign(values, { stockfis: 0, ventasinstock: true });
    },
    async afterSave({ db, existing, record }) {
      if (existing) await syncMainVariant(db, existing, record);
      else await createMainVariant(db, record);
    },
  },
});
