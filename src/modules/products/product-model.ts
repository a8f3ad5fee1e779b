import { defineModel } from '../../models/define-model.ts';
import { f, now, today } from '../../models/fields.ts';

/** Products (table `productos`), columns as the reference (facturascripts-model.md 2.4). */
export const productModel = defineModel({
  name: 'Producto',
  table: 'productos',
  fields: {
    idproducto: f.serial(),
    referencia: f.string(30, { notNull: true, unique: true }),
    descripcion: f.text(),
    actualizado: f.timestamp({ readOnly: true }),
    bloqueado: f.boolean({ default: false }),
    codfabricante: f.string(8),
    codfamilia: f.string(8),
    codimpuesto: f.string(10),
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
  validate(values) {
    if (typeof values.precio === 'number' && values.precio < 0) return { precio: 'negative' };
    return undefined;
  },
  hooks: {
    beforeSave({ values }) {
      values.actualizado = now();
      // The reference: a blocked product is neither sold, bought nor public; nostock zeroes stock.
      if (values.bloqueado === true) Object.assign(values, { publico: false, sevende: false, secompra: false });
      if (values.nostock === true) Object.assign(values, { stockfis: 0, ventasinstock: true });
    },
  },
});
