import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Customers (table `clientes`), columns as the reference (facturascripts-model.md 2.3). */
export const customerModel = defineModel({
  name: 'Cliente',
  table: 'clientes',
  fields: {
    codcliente: f.string(10, { primary: true, generatedCode: true }),
    nombre: f.string(100, { notNull: true }),
    razonsocial: f.string(100),
    cifnif: f.string(30, { notNull: true, default: '' }),
    tipoidfiscal: f.string(25),
    codagente: f.string(10),
    codgrupo: f.string(6),
    codpago: f.string(10),
    codproveedor: f.string(10),
    codretencion: f.string(10),
    codserie: f.string(4),
    codsubcuenta: f.string(15),
    codtarifa: f.string(6),
    debaja: f.boolean({ default: false }),
    diaspago: f.string(10),
    excepcioniva: f.string(20),
    email: f.string(100),
    fax: f.string(30),
    fechaalta: f.date({ initial: today }),
    fechabaja: f.date(),
    idcontactoenv: f.integer(),
    idcontactofact: f.integer(),
    langcode: f.string(10),
    observaciones: f.text(),
    operacion: f.string(30),
    personafisica: f.boolean({ default: true }),
    regimeniva: f.string(50, { initial: () => 'General' }),
    riesgoalcanzado: f.double(),
    riesgomax: f.double(),
    telefono1: f.string(30),
    telefono2: f.string(30),
    web: f.string(100),
  },
  validate(values, existing) {
    const errors: Record<string, string> = {};
    const code = values.codcliente;
    if (!existing && typeof code === 'string' && !/^[A-Z0-9_+.-]{1,10}$/i.test(code)) errors.codcliente = 'invalid-code';
    if (typeof values.nombre === 'string' && values.nombre.trim() === '') errors.nombre = 'required';
    if (typeof values.email === 'string' && values.email !== '' && !EMAIL.test(values.email)) errors.email = 'invalid-email';
    return errors;
  },
  hooks: {
    beforeSave({ values, existing }) {
      // The reference: razonsocial defaults to nombre; debaja follows fechabaja.
      if (!existing && (values.razonsocial === undefined || values.razonsocial === null)) values.razonsocial = values.nombre;
      if (values.fechabaja !== undefined) values.debaja = values.fechabaja !== null;
    },
  },
});
