import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { checkCode, checkEmail, checkFilled, checkUrl, codeOf } from '../../models/record-rules.ts';
import { addOwnerContact } from '../contacts/index.ts';
import { fillDefaults } from '../settings/index.ts';

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
    codagente: f.string(10, { references: f.ref('agentes', 'codagente', 'SET NULL') }),
    codgrupo: f.string(6, { references: f.ref('gruposclientes', 'codgrupo', 'SET NULL') }),
    codpago: f.string(10, { references: f.ref('formaspago', 'codpago', 'SET NULL') }),
    codproveedor: f.string(10),
    codretencion: f.string(10, { references: f.ref('retenciones', 'codretencion', 'SET NULL') }),
    codserie: f.string(4, { references: f.ref('series', 'codserie', 'SET NULL') }),
    codsubcuenta: f.string(15),
    codtarifa: f.string(6, { references: f.ref('tarifas', 'codtarifa', 'SET NULL') }),
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
  // Lists sorted by name (then the key, as every list), and look-ups by tax id.
  indexes: [['nombre', 'codcliente'], ['cifnif']],
  validate(values, existing) {
    const errors: Record<string, string> = {};
    checkCode(errors, values, existing, 'codcliente', codeOf(10));
    checkFilled(errors, values, 'nombre');
    checkEmail(errors, values);
    checkUrl(errors, values);
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      // The reference (ComercialContact::clear): the installation's fiscal id type and retention;
      // issue 10 adds the payment method and series, so the record shows what its documents get.
      if (!existing) await fillDefaults(db, values, ['tipoidfiscal', 'codretencion', 'codpago', 'codserie']);
      // The reference: razonsocial defaults to nombre; debaja follows fechabaja.
      if (!existing && (values.razonsocial === undefined || values.razonsocial === null)) values.razonsocial = values.nombre;
      if (values.fechabaja !== undefined) values.debaja = values.fechabaja !== null;
      // The reference: diaspago is a comma list of days 1..31, or null.
      if (typeof values.diaspago === 'string') {
        const days = values.diaspago.split(',').map((day) => Number.parseInt(day.trim(), 10)).filter((day) => day >= 1 && day <= 31);
        values.diaspago = days.length ? days.join(',') : null;
      }
    },
    async afterSave(ctx) {
      // The reference: a new customer without a billing contact gets one (first word of the name,
      // the rest as surnames) and bills to it; the shipping contact stays unset.
      const { db, existing, record } = ctx;
      if (existing || (record.idcontactofact !== null && record.idcontactofact !== undefined)) return;
      const [nombre, ...apellidos] = String(record.nombre).trim().split(/\s+/);
      const idcontactofact = await addOwnerContact(ctx, { ...record, owner: { codcliente: String(record.codcliente) }, nombre: nombre!, apellidos: apellidos.join(' ') });
      await db.updateTable('clientes').set({ idcontactofact }).where('codcliente', '=', record.codcliente as string).execute();
      return { ...record, idcontactofact };
    },
  },
});
