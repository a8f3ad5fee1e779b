import { defineModel } from '../../models/define-model.ts';
import { f, now, sortedFields } from '../../models/fields.ts';
import { checkFilled, type Errors } from '../../models/record-rules.ts';

/**
 * Cities, postal codes and points of interest of a city, with the reference's audit columns
 * (`creation_date`, `nick`, `last_nick`, `last_update`; the users' references are cleared when a
 * user is deleted).
 */
const audit = () => ({
  creation_date: f.timestamp({ initial: now }),
  last_nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
  last_update: f.timestamp(),
  nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
});

/** Cities of a province (table `ciudades`), deleted with their province; a name is unique within it. */
export const ciudadModel = defineModel({
  name: 'Ciudad',
  table: 'ciudades',
  fields: sortedFields({
    alias: f.text(),
    ciudad: f.string(100, { notNull: true }),
    codeid: f.string(5),
    idciudad: f.serial(),
    idprovincia: f.integer({ notNull: true, references: f.ref('provincias', 'idprovincia', 'CASCADE') }),
    latitude: f.double(),
    longitude: f.double(),
    ...audit(),
  }),
  unique: [['ciudad', 'idprovincia']],
  validate(values) {
    const errors: Errors = {};
    checkFilled(errors, values, 'ciudad');
    return errors;
  },
});

/** Postal codes (table `codigos_postales`): a number of a city, province and country, deleted with any of them. */
export const codigoPostalModel = defineModel({
  name: 'CodigoPostal',
  table: 'codigos_postales',
  fields: sortedFields({
    codpais: f.string(20, { notNull: true, references: f.ref('paises', 'codpais', 'CASCADE') }),
    id: f.serial(),
    idciudad: f.integer({ notNull: true, references: f.ref('ciudades', 'idciudad', 'CASCADE') }),
    idprovincia: f.integer({ notNull: true, references: f.ref('provincias', 'idprovincia', 'CASCADE') }),
    number: f.integer({ notNull: true }),
    ...audit(),
  }),
  unique: [['codpais', 'idprovincia', 'idciudad', 'number']],
});

/**
 * Points of interest of a city (table `puntos_interes_ciudades`), unique by name within it. The
 * reference declares no foreign key on `idciudad`, so none is declared here either.
 */
export const puntoInteresCiudadModel = defineModel({
  name: 'PuntoInteresCiudad',
  table: 'puntos_interes_ciudades',
  fields: sortedFields({
    alias: f.text(),
    id: f.serial(),
    idciudad: f.integer({ notNull: true }),
    latitude: f.double(),
    longitude: f.double(),
    name: f.string(100),
    ...audit(),
  }),
  unique: [['idciudad', 'name']],
});
