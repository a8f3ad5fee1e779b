import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { checkCode, checkEmail, codeOf, current, hasText, type Errors } from '../../models/record-rules.ts';

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

/** Contacts and addresses of customers and suppliers (table `contactos`), facturascripts-model.md 2.3. */
export const contactoModel = defineModel({
  name: 'Contacto',
  table: 'contactos',
  fields: {
    aceptaprivacidad: f.boolean({ default: false }),
    admitemarketing: f.boolean({ default: false }),
    apartado: f.string(10),
    apellidos: f.string(150),
    cargo: f.string(100),
    cifnif: f.string(30),
    ciudad: f.string(100),
    codagente: f.string(10, { references: f.ref('agentes', 'codagente', 'SET NULL') }),
    codcliente: f.string(10, { references: f.ref('clientes', 'codcliente', 'SET NULL') }),
    codpais: f.string(20),
    codpostal: f.string(10),
    codproveedor: f.string(10, { references: f.ref('proveedores', 'codproveedor', 'SET NULL') }),
    descripcion: f.string(100),
    direccion: f.string(200),
    email: f.string(100),
    empresa: f.string(100),
    fechaalta: f.date({ initial: today }),
    idcontacto: f.serial(),
    langcode: f.string(10),
    nombre: f.string(100),
    observaciones: f.text(),
    personafisica: f.boolean({ default: true }),
    provincia: f.string(100),
    telefono1: f.string(30),
    telefono2: f.string(30),
    tipoidfiscal: f.string(25),
    verificado: f.boolean({ default: false }),
    web: f.string(100),
  },
  validate(values, existing) {
    const errors: Errors = {};
    const contact = current(values, existing);
    if (!hasText(contact.nombre) && !hasText(contact.email) && !hasText(contact.direccion)) errors.nombre = 'required';
    checkEmail(errors, values);
    return errors;
  },
  hooks: {
    beforeSave({ values, existing }) {
      // The reference: an empty description is the full name, or the address for a customer's or supplier's contact.
      const contact = current(values, existing);
      if (hasText(contact.descripcion)) return;
      const owned = hasText(contact.codcliente) || hasText(contact.codproveedor);
      const fullName = [contact.nombre, contact.apellidos].filter(hasText).join(' ');
      const description = owned ? contact.direccion : fullName;
      if (hasText(description)) values.descripcion = description.slice(0, 100);
    },
  },
});

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
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codproveedor', codeOf(10));
    checkEmail(errors, values);
    return errors;
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
