import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { checkCode, checkEmail, codeOf, type Errors } from '../../models/record-rules.ts';
import { fillDefaults } from '../settings/index.ts';
import { addOwnerContact } from './owner-contact.ts';

/** Customer groups, optionally with a price rate (table `gruposclientes`), facturascripts-model.md 2.3. */
export const grupoClientesModel = defineModel({
  name: 'GrupoClientes',
  table: 'gruposclientes',
  fields: {
    codgrupo: f.string(6, { primary: true, generatedCode: true }),
    codsubcuenta: f.string(15),
    codtarifa: f.string(6, { references: f.ref('tarifas', 'codtarifa', 'SET NULL') }),
    nombre: f.string(100, { notNull: true }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codgrupo', codeOf(6));
    return errors;
  },
});

export { contactoModel } from './contact-model.ts';

/** Suppliers (table `proveedores`), facturascripts-model.md 2.3. */
export const proveedorModel = defineModel({
  name: 'Proveedor',
  table: 'proveedores',
  fields: {
    acreedor: f.boolean({ default: false }),
    cifnif: f.string(30, { notNull: true }),
    codcliente: f.string(10),
    codpago: f.string(10, { references: f.ref('formaspago', 'codpago', 'SET NULL') }),
    codproveedor: f.string(10, { primary: true, generatedCode: true }),
    codretencion: f.string(10, { references: f.ref('retenciones', 'codretencion', 'SET NULL') }),
    codserie: f.string(4, { references: f.ref('series', 'codserie', 'SET NULL') }),
    codsubcuenta: f.string(15),
    debaja: f.boolean({ default: false }),
    excepcioniva: f.string(20),
    email: f.string(100),
    fax: f.string(30),
    fechaalta: f.date({ initial: today }),
    fechabaja: f.date(),
    idcontacto: f.integer(),
    langcode: f.string(10),
    nombre: f.string(100, { notNull: true }),
    observaciones: f.text(),
    operacion: f.string(30),
    personafisica: f.boolean({ default: true }),
    razonsocial: f.string(100),
    regimeniva: f.string(50, { initial: () => 'General' }),
    telefono1: f.string(30),
    telefono2: f.string(30),
    tipoidfiscal: f.string(25),
    web: f.string(100),
  },
  // Lists sorted by name (then the key, as every list), and look-ups by tax id.
  indexes: [['nombre', 'codproveedor'], ['cifnif']],
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codproveedor', codeOf(10));
    checkEmail(errors, values);
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      // The reference (ComercialContact::clear): the installation's fiscal id type and retention;
      // issue 10 adds the payment method and series, so the record shows what its documents get.
      if (!existing) await fillDefaults(db, values, ['tipoidfiscal', 'codretencion', 'codpago', 'codserie']);
    },
    async afterSave(ctx) {
      // The reference: a new supplier without a contact gets one, named as the supplier, and points to it.
      const { db, existing, record } = ctx;
      if (existing || (record.idcontacto !== null && record.idcontacto !== undefined)) return;
      const idcontacto = await addOwnerContact(ctx, { ...record, owner: { codproveedor: String(record.codproveedor) }, nombre: String(record.nombre) });
      await db.updateTable('proveedores').set({ idcontacto }).where('codproveedor', '=', record.codproveedor as string).execute();
      return { ...record, idcontacto };
    },
  },
});

/** Sales agents (table `agentes`), facturascripts-model.md 2.3. */
export const agenteModel = defineModel({
  name: 'Agente',
  table: 'agentes',
  fields: {
    cargo: f.string(100),
    cifnif: f.string(30),
    codagente: f.string(10, { primary: true, generatedCode: true }),
    debaja: f.boolean({ default: false }),
    email: f.string(100),
    fechaalta: f.date({ initial: today }),
    fechabaja: f.date(),
    idcontacto: f.integer(),
    idproducto: f.integer({ references: f.ref('productos', 'idproducto', 'SET NULL') }),
    nombre: f.string(100, { notNull: true }),
    observaciones: f.text(),
    telefono1: f.string(30),
    telefono2: f.string(30),
    tipoidfiscal: f.string(25),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codagente', codeOf(10));
    checkEmail(errors, values);
    return errors;
  },
});

/** Carriers (table `agenciastrans`), facturascripts-model.md 2.3. */
export const agenciaTransporteModel = defineModel({
  name: 'AgenciaTransporte',
  table: 'agenciastrans',
  fields: {
    activo: f.boolean({ notNull: true, default: true }),
    codtrans: f.string(8, { primary: true }),
    nombre: f.string(100, { notNull: true }),
    telefono: f.string(30),
    web: f.string(100),
  },
});
