import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { fieldErrors, validationError } from '../../errors.ts';
import { textOf } from '../../models/record-rules.ts';
import { companyOf } from '../company/index.ts';
import { settingsGroup, settingsModel } from '../settings/index.ts';
import { addressesOf, addressProblem, hasControl, parseAddresses, type Address } from './addresses.ts';

/**
 * The e-mail settings: the installation's `email` settings group (the reference's: `mailer`,
 * `host`, `port`, `enc`, `user`, `password`, `email`), and per company a group `email-<idempresa>`
 * whose keys win over the installation's. `SMTP_URL` replaces server, port, security and login.
 */
export interface MailSettings {
  host: string;
  port: number;
  /** `auto`: STARTTLS when the server offers it (the default); `starttls`: required; `tls`: from the first byte; `none`: never. */
  security: 'auto' | 'none' | 'starttls' | 'tls';
  user: string;
  password: string;
  /** Accept a server certificate that does not verify (the reference's `lowsecure`): tests, a server on the same host. */
  lowsecure: boolean;
  from: Address | undefined;
  replyTo: Address | undefined;
  bcc: Address[];
  /** Days after a receipt's due date on which a reminder goes (empty: none). */
  reminderDays: number[];
}

/** The group of the installation and the groups of companies. */
export const INSTALLATION_GROUP = 'email';
export const companyGroup = (idempresa: number): string => `email-${idempresa}`;
const GROUP = /^email(?:-([1-9][0-9]{0,8}))?$/;

/**
 * `enc` as the reference writes it (PHPMailer's words: `tls` is STARTTLS, `ssl` is TLS from the
 * first byte), and our own clearer names. Empty is STARTTLS when offered: a login never goes in
 * clear text unless `none` says so.
 */
const SECURITY: Record<string, MailSettings['security']> = { '': 'auto', auto: 'auto', none: 'none', tls: 'starttls', starttls: 'starttls', ssl: 'tls', smtps: 'tls' };

/** The keys that say which server and how to log in: a company's group that names a `host` brings all of them, never inheriting the installation's login. */
const SERVER_KEYS = ['host', 'port', 'enc', 'user', 'password', 'lowsecure'];

function reminderDaysOf(value: unknown): number[] | undefined {
  if (value === undefined || value === null || value === '') return [];
  const items = Array.isArray(value) ? value : String(value).split(',');
  const days = items.map((item) => (typeof item === 'number' ? item : /^\s*\d{1,4}\s*$/.test(String(item)) ? Number(item) : NaN));
  if (days.some((day) => !Number.isInteger(day) || day < 1 || day > 3650) || days.length > 10) return undefined;
  return [...new Set(days)].sort((a, b) => a - b);
}

/** The problems of a group's keys, by `properties.<key>` (what the settings resource answers with). */
export function mailSettingsProblems(properties: Record<string, unknown>): Record<string, string> {
  const errors = fieldErrors();
  const bad = (key: string, reason: string) => (errors[`properties.${key}`] = reason);
  for (const [key, value] of Object.entries(properties)) {
    if (typeof value === 'string' && hasControl(value) && key !== 'password') bad(key, 'header-injection');
  }
  if (properties.mailer !== undefined && !['smtp', ''].includes(textOf(properties.mailer))) bad('mailer', 'unsupported-mailer');
  if (properties.host !== undefined && textOf(properties.host) !== '' && !/^[A-Za-z0-9.-]{1,253}$|^\[[0-9A-Fa-f:.]+\]$/.test(textOf(properties.host))) bad('host', 'invalid-host');
  if (properties.port !== undefined && properties.port !== '') {
    const port = Number(properties.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) bad('port', 'invalid-port');
  }
  if (properties.enc !== undefined && !Object.hasOwn(SECURITY, textOf(properties.enc).toLowerCase())) bad('enc', 'invalid-value');
  if (properties.lowsecure !== undefined && typeof properties.lowsecure !== 'boolean') bad('lowsecure', 'invalid-value');
  for (const key of ['email', 'replyto']) {
    const problem = addressProblem(properties[key]);
    if (problem) bad(key, problem);
  }
  const bcc = parseAddresses(properties.bcc);
  if (typeof bcc === 'string') bad('bcc', bcc);
  if (reminderDaysOf(properties.reminderdays) === undefined) bad('reminderdays', 'invalid-value');
  return errors;
}

/**
 * Refuses a save of an e-mail group with a bad key (422 naming it), and a company group of a
 * company that does not exist; runs in the save's transaction (a store watcher).
 */
export function guardMailSettings(ctx: AppContext): void {
  ctx.store.watch([settingsModel.resource], async (db, _model, change) => {
    if (!change || change.action === 'delete') return;
    const name = String(change.record.name ?? '');
    const group = GROUP.exec(name);
    if (!group) return;
    const errors = mailSettingsProblems((change.record.properties ?? {}) as Record<string, unknown>);
    if (group[1] && !(await companyOf(db, Number(group[1])))) errors.name = 'company-not-found';
    if (Object.keys(errors).length) throw validationError(errors);
  });
}

/**
 * The settings a company's messages go with: its group over the installation's (the server and
 * its login as one, the other keys each), `SMTP_URL` over both. Without a sender address the
 * company's own e-mail is the sender, under its name.
 */
export async function mailSettingsOf(ctx: AppContext, idempresa: number, db: DbExecutor = ctx.database.kysely): Promise<MailSettings> {
  const merged = { ...(await settingsGroup(db, INSTALLATION_GROUP)) };
  const own = await settingsGroup(db, companyGroup(idempresa));
  if (textOf(own.host) !== '') for (const key of SERVER_KEYS) delete merged[key];
  for (const [key, value] of Object.entries(own)) if (value !== null && value !== undefined) merged[key] = value;
  let from = addressesOf(merged.email)[0];
  const fromName = textOf(merged.fromname);
  if (!from) {
    const company = await companyOf(db, idempresa);
    const address = addressesOf(company?.email)[0];
    if (address) from = { name: textOf(company?.nombre), address: address.address };
  }
  const settings: MailSettings = {
    host: textOf(merged.host).replace(/^\[|\]$/g, ''),
    port: Number(merged.port) || 0,
    security: SECURITY[textOf(merged.enc).toLowerCase()] ?? 'auto',
    user: textOf(merged.user),
    password: textOf(merged.password),
    lowsecure: merged.lowsecure === true,
    from: from && fromName ? { ...from, name: fromName } : from,
    replyTo: addressesOf(merged.replyto)[0],
    bcc: addressesOf(merged.bcc),
    reminderDays: reminderDaysOf(merged.reminderdays) ?? [],
  };
  const url = ctx.config.mail.smtpUrl;
  if (url) {
    const parsed = new URL(url);
    settings.host = parsed.hostname.replace(/^\[|\]$/g, '');
    // smtp:// is STARTTLS, required; `?security=none` for a relay that offers no TLS.
    settings.security = parsed.protocol === 'smtps:' ? 'tls' : parsed.searchParams.get('security') === 'none' ? 'none' : 'starttls';
    settings.port = Number(parsed.port) || (settings.security === 'tls' ? 465 : 587);
    settings.user = decodeURIComponent(parsed.username);
    settings.password = decodeURIComponent(parsed.password);
    if (parsed.searchParams.get('lowsecure') === 'true') settings.lowsecure = true;
  }
  if (!settings.port) settings.port = settings.security === 'tls' ? 465 : settings.security === 'none' ? 25 : 587;
  return settings;
}

/** Where a company cannot send from (422 `mail-not-configured` naming what is missing), else nothing. */
export function unconfigured(settings: MailSettings): string | undefined {
  if (!settings.host) return 'host';
  if (!settings.from) return 'email';
  return undefined;
}

/** Refuses with `mail-not-configured` when the settings cannot send. */
export function requireConfigured(settings: MailSettings): void {
  const missing = unconfigured(settings);
  if (missing) throw validationError({ [`settings.${missing}`]: 'mail-not-configured' });
}
