import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { checkEmail, current, hasText, type Errors } from '../../models/record-rules.ts';
import { fillDefaults } from '../settings/index.ts';

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
    async beforeSave({ db, values, existing }) {
      // The reference: a new contact is in the installation's country.
      if (!existing) await fillDefaults(db, values, ['codpais']);
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
