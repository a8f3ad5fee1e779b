import { hash, randomInt } from 'node:crypto';
import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';

/** The response profiles a key may have (the HTTP layer's `Profile`). */
export const PROFILE_NAMES = ['spec', 'facturascripts'] as const;

const TOKEN_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A 20-character token from a CSPRNG (spec "Limits": the key token length is 20 characters). */
export function generateToken(length = 20): string {
  let token = '';
  for (let i = 0; i < length; i++) token += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return token;
}

/** Only this digest is stored: a leaked database does not leak usable keys. Lookup is by digest. */
export function hashToken(token: string): string;
export function hashToken(token: string, as: 'buffer'): Buffer;
export function hashToken(token: string, as: 'hex' | 'buffer' = 'hex'): string | Buffer {
  return hash('sha256', token, as);
}

/** Stored API keys (table `api_keys`); the token is returned once, on creation, and never again. */
export const apiKeyModel = defineModel({
  name: 'ApiKey',
  table: 'api_keys',
  fields: {
    id: f.serial(),
    apikey: f.string(99, { notNull: true, hidden: true, readOnly: true, unique: true }),
    description: f.string(150, { notNull: true }),
    nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    enabled: f.boolean({ notNull: true, default: true }),
    fullaccess: f.boolean({ default: false }),
    creationdate: f.date({ notNull: true, initial: today }),
    lastactivity: f.timestamp({ readOnly: true }),
    lastip: f.string(45, { readOnly: true }),
    /** How the API answers this key: `spec` (default) or `facturascripts` (docs/compatibility.md). */
    profile: f.string(20, { notNull: true, default: 'spec' }),
    /** Requests per minute this key may make: empty for the installation's RATE_LIMIT_PER_MINUTE, 0 for no limit. */
    ratelimit: f.integer({ min: 0, max: 1_000_000_000 }),
  },
  validate(values) {
    if (values.profile !== undefined && !(PROFILE_NAMES as readonly unknown[]).includes(values.profile)) return { profile: 'invalid-value' };
    return undefined;
  },
  hooks: {
    beforeSave(ctx) {
      if (ctx.existing) return;
      const token = generateToken();
      ctx.values.apikey = hashToken(token);
      ctx.reveal.apikey = token;
    },
  },
});

/** Per key and resource permissions (table `api_access`), deleted with their key. */
export const apiAccessModel = defineModel({
  name: 'ApiAccess',
  table: 'api_access',
  fields: {
    id: f.serial(),
    idapikey: f.integer({ notNull: true, references: f.ref('api_keys', 'id', 'CASCADE') }),
    resource: f.string(100, { notNull: true }),
    allowget: f.boolean({ default: true }),
    allowpost: f.boolean({ default: true }),
    allowput: f.boolean({ default: true }),
    allowdelete: f.boolean({ default: true }),
  },
  unique: [['idapikey', 'resource']],
});
