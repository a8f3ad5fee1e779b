import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { validationError } from '../../errors.ts';
import { checkCode, type Errors } from '../../models/record-rules.ts';

const NICK = /^[A-Z0-9_@+.-]{3,50}$/i;
const KEY_LENGTH = 64;

/** The stored form of a password: `scrypt$<salt hex>$<hash hex>`. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('hex')}$${scryptSync(password, salt, KEY_LENGTH).toString('hex')}`;
}

/** Whether `plain` is the password whose stored form is `stored`. */
export function verifyPassword(plain: string, stored: string): boolean {
  const [scheme, salt, hash, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || rest.length) return false;
  const expected = Buffer.from(hash, 'hex');
  if (expected.length !== KEY_LENGTH) return false;
  return timingSafeEqual(scryptSync(plain, Buffer.from(salt, 'hex'), KEY_LENGTH), expected);
}

/**
 * Users (`users`), authors of documents. The password is written (hashed) but never returned;
 * `logkey` and the two-factor secret are neither returned nor written through the API.
 */
export const userModel = defineModel({
  name: 'User',
  table: 'users',
  fields: {
    admin: f.boolean({ notNull: true, default: false }),
    codagente: f.string(10),
    codalmacen: f.string(4),
    codserie: f.string(4, { references: f.ref('series', 'codserie', 'SET NULL') }),
    creationdate: f.date({ initial: today }),
    email: f.string(100),
    enabled: f.boolean({ notNull: true, default: true }),
    // The reference's FK to pages.name is left out: pages are not part of this project.
    homepage: f.string(30),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'SET NULL') }),
    langcode: f.string(10),
    lastactivity: f.timestamp(),
    lastbrowser: f.string(200),
    lastip: f.string(45),
    level: f.integer({ initial: () => 2 }),
    logkey: f.string(100, { hidden: true, readOnly: true }),
    nick: f.string(50, { primary: true }),
    password: f.string(255, { notNull: true, hidden: true }),
    two_factor_enabled: f.boolean({ notNull: true, default: false }),
    two_factor_secret_key: f.string(32, { hidden: true, readOnly: true }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'nick', NICK);
    return errors;
  },
  hooks: {
    beforeSave({ values, existing }) {
      if (typeof values.password === 'string') {
        if (values.password === '') throw validationError({ password: 'required' });
        values.password = hashPassword(values.password);
      }
      if ((values.admin ?? existing?.admin) === true) values.level = 99;
    },
  },
});
