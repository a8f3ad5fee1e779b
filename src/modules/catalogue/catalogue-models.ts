import { defineModel } from '../../models/define-model.ts';
import { validationError } from '../../errors.ts';
import { f, now } from '../../models/fields.ts';
import { refuseMainVariantDelete, syncProduct } from './product-variants.ts';
import { checkCode, checkFilled, codeOf, current, hasText, num, type Errors } from '../../models/record-rules.ts';
import { roundNumber } from '../../models/round.ts';
import { settleStock } from './stock.ts';
import { netInEuros, supplierNet } from './supplier-price-updates.ts';
import { conversionRateOf } from '../finance/index.ts';

/** Product variants: the sellable references (table `variantes`), facturascripts-model.md 2.4. */
export const varianteModel = defineModel({
  name: 'Variante',
  table: 'variantes',
  fields: {
    codbarras: f.string(20),
    coste: f.double({ default: 0 }),
    idatributovalor1: f.integer(),
    idatributovalor2: f.integer(),
    idatributovalor3: f.integer(),
    idatributovalor4: f.integer(),
    idproducto: f.integer({ notNull: true, references: f.ref('productos', 'idproducto', 'CASCADE') }),
    idvariante: f.serial(),
    margen: f.double({ default: 0 }),
    precio: f.double({ default: 0 }),
    referencia: f.string(30, { notNull: true, unique: true }),
    stockfis: f.double({ default: 0 }),
  },
  // A document's lines name a variant by reference or by barcode (line-products.ts): without it,
  // reading a document's products scanned every variant.
  indexes: [['codbarras']],
  hooks: {
    beforeSave({ values, existing }) {
      // The reference: empty amounts are 0; a positive margin sets the price from the cost.
      for (const name of ['precio', 'coste', 'margen']) if (values[name] === null) values[name] = 0;
      const variant = current(values, existing);
      const margin = num(variant.margen);
      if (margin > 0) values.precio = roundNumber((num(variant.coste) * (100 + margin)) / 100, 5);
    },
    async afterSave({ db, existing, record }) {
      await syncProduct(db, existing, record);
    },
    async beforeDelete({ db, existing }) {
      await refuseMainVariantDelete(db, existing);
    },
  },
});

/** Stock of one reference in one warehouse (table `stocks`), facturascripts-model.md 2.4. */
export const stockModel = defineModel({
  name: 'Stock',
  table: 'stocks',
  fields: {
    cantidad: f.double({ default: 0 }),
    codalmacen: f.string(4, { notNull: true, references: f.ref('almacenes', 'codalmacen', 'CASCADE') }),
    /** What is on hand and not reserved; kept by the stock service (stock.ts). */
    disponible: f.double({ default: 0, readOnly: true }),
    idproducto: f.integer({ notNull: true, references: f.ref('productos', 'idproducto', 'CASCADE') }),
    idstock: f.serial(),
    pterecibir: f.double({ default: 0 }),
    referencia: f.string(30, { notNull: true, references: f.ref('variantes', 'referencia', 'CASCADE') }),
    reservada: f.double({ default: 0 }),
    stockmax: f.double({ default: 0 }),
    stockmin: f.double({ default: 0 }),
    ubicacion: f.string(100),
  },
  unique: [['codalmacen', 'referencia']],
  hooks: {
    async beforeSave({ db, values, existing }) {
      // The reference: quantities to 3 decimals; the product is the variant's.
      for (const name of ['cantidad', 'reservada', 'pterecibir']) {
        const value = values[name];
        if (typeof value === 'number') values[name] = roundNumber(value, 3);
      }
      const referencia = current(values, existing).referencia;
      if (!existing && (values.idproducto === undefined || values.idproducto === null) && typeof referencia === 'string') {
        const variant = await db.selectFrom('variantes').select('idproducto').where('referencia', '=', referencia).executeTakeFirst();
        if (variant) values.idproducto = Number(variant.idproducto);
      }
    },
    // Stock written directly settles like stock moved by a document (one rule, in the service).
    async afterSave({ db, dialect, record, existing }) {
      await settleStock(db, dialect, String(record.codalmacen), String(record.referencia), Number(record.idproducto));
      if (existing && (existing.referencia !== record.referencia || existing.codalmacen !== record.codalmacen)) {
        await settleStock(db, dialect, String(existing.codalmacen), String(existing.referencia), Number(existing.idproducto));
      }
      const settled = await db.selectFrom('stocks').select('disponible').where('idstock', '=', record.idstock as number).executeTakeFirstOrThrow();
      return { ...record, disponible: Number(settled.disponible) };
    },
    async afterDelete({ db, dialect, existing }) {
      await settleStock(db, dialect, String(existing.codalmacen), String(existing.referencia), Number(existing.idproducto));
    },
  },
});

/** Product families, a tree through `madre` (table `familias`), facturascripts-model.md 2.4. */
export const familiaModel = defineModel({
  name: 'Familia',
  table: 'familias',
  fields: {
    codfamilia: f.string(8, { primary: true, generatedCode: true }),
    codsubcuentacom: f.string(15),
    codsubcuentairpfcom: f.string(15),
    codsubcuentaven: f.string(15),
    descripcion: f.string(100, { notNull: true }),
    madre: f.string(8),
    numproductos: f.integer({ notNull: true, default: 0 }),
    idattachedfile: f.integer({ references: f.ref('attached_files', 'idfile', 'SET NULL') }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codfamilia', codeOf(8));
    checkFilled(errors, values, 'descripcion');
    return errors;
  },
  hooks: {
    beforeSave({ values, existing }) {
      // The reference: a family cannot be its own parent (the parent is cleared).
      const family = current(values, existing);
      if (hasText(family.madre) && family.madre === family.codfamilia) values.madre = null;
    },
  },
});

/** Manufacturers (table `fabricantes`), facturascripts-model.md 2.4. */
export const fabricanteModel = defineModel({
  name: 'Fabricante',
  table: 'fabricantes',
  fields: {
    codfabricante: f.string(8, { primary: true, generatedCode: true }),
    nombre: f.string(100, { notNull: true }),
    numproductos: f.integer({ notNull: true, default: 0 }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codfabricante', codeOf(8));
    return errors;
  },
});

/** Price rates, a formula on cost or on price (table `tarifas`), facturascripts-model.md 2.4 and 3.3. */
export const tarifaModel = defineModel({
  name: 'Tarifa',
  table: 'tarifas',
  fields: {
    aplicar: f.string(12, { initial: () => 'pvp' }),
    codtarifa: f.string(6, { primary: true, generatedCode: true }),
    maxpvp: f.boolean({ default: false }),
    mincoste: f.boolean({ default: false }),
    nombre: f.string(50, { notNull: true }),
    valorx: f.double({ initial: () => 0 }),
    valory: f.double({ initial: () => 0 }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codtarifa', codeOf(6));
    return errors;
  },
});

/** Supplier prices of a reference (table `productosprov`), facturascripts-model.md 2.4. */
export const productoProveedorModel = defineModel({
  name: 'ProductoProveedor',
  table: 'productosprov',
  fields: {
    actualizado: f.timestamp({ initial: now }),
    coddivisa: f.string(3, { references: f.ref('divisas', 'coddivisa', 'RESTRICT') }),
    codproveedor: f.string(10, { notNull: true, references: f.ref('proveedores', 'codproveedor', 'CASCADE') }),
    dtopor: f.percent(),
    dtopor2: f.percent(),
    id: f.serial(),
    idproducto: f.integer({ references: f.ref('productos', 'idproducto', 'CASCADE') }),
    neto: f.double(),
    netoeuros: f.double({ default: 0 }),
    precio: f.double(),
    referencia: f.string(30),
    refproveedor: f.string(30, { notNull: true }),
    stock: f.double({ default: 0 }),
  },
  unique: [['codproveedor', 'refproveedor', 'referencia', 'coddivisa']],
  hooks: {
    async beforeSave({ db, values, existing, clock }) {
      if (typeof values.actualizado === 'string' && values.actualizado > now(clock)) throw validationError({ actualizado: 'out-of-range' });
      // The reference: refproveedor defaults to referencia; neto applies both discounts to precio,
      // netoeuros is neto in euros (at the currency's purchase rate).
      const price = current(values, existing);
      if (!hasText(price.refproveedor) && hasText(price.referencia)) values.refproveedor = price.referencia;
      values.neto = supplierNet(num(price.precio), num(price.dtopor), num(price.dtopor2));
      const rate = hasText(price.coddivisa) ? await conversionRateOf(db, price.coddivisa, 'purchase') : undefined;
      values.netoeuros = netInEuros(values.neto, rate ?? 1);
    },
  },
});
