import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';
import { checkCode, type Errors } from '../../models/record-rules.ts';
import { refuseDeletingDefault } from '../settings/index.ts';

/** Countries (table `paises`), facturascripts-model.md 2.2. */
export const paisModel = defineModel({
  name: 'Pais',
  table: 'paises',
  fields: {
    alias: f.text(),
    codiso: f.string(2, { unique: true }),
    codpais: f.string(20, { primary: true }),
    creation_date: f.timestamp({ initial: now }),
    last_nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    last_update: f.timestamp(),
    latitude: f.double(),
    longitude: f.double(),
    nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    nombre: f.string(100),
    telephone_prefix: f.string(10),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codpais', /^[A-Z0-9]{1,20}$/i);
    return errors;
  },
  hooks: {
    async beforeDelete({ db, existing }) {
      await refuseDeletingDefault(db, ['codpais'], existing.codpais);
    },
  },
});

/** Provinces and states of a country (table `provincias`), facturascripts-model.md 2.2. */
export const provinciaModel = defineModel({
  name: 'Provincia',
  table: 'provincias',
  fields: {
    alias: f.text(),
    codeid: f.string(2),
    codisoprov: f.string(10),
    codpais: f.string(20, { notNull: true, references: f.ref('paises', 'codpais', 'CASCADE') }),
    creation_date: f.timestamp({ initial: now }),
    idprovincia: f.serial(),
    last_nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    last_update: f.timestamp(),
    latitude: f.double(),
    longitude: f.double(),
    nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    provincia: f.string(100, { notNull: true }),
    telephone_prefix: f.string(10),
  },
  unique: [['codpais', 'provincia']],
});
