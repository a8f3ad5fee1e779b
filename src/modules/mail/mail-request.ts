import { validationError } from '../../errors.ts';
import { bodyFields } from '../../http/body.ts';
import { exportTypeOf, languageOf } from '../export/index.ts';
import { hasControl, MAX_RECIPIENTS, parseAddresses, type Address } from './addresses.ts';

/** The body of `enviar<Doc>`, read and checked (docs/email.md). */
export interface SendRequest {
  /** Empty: the customer's or supplier's e-mail. */
  to: Address[];
  cc: Address[];
  bcc: Address[];
  /** Undefined: the template's. */
  subject: string | undefined;
  body: string | undefined;
  lang: string | undefined;
  /** Canonical export types (`PDF`, `UBL` ...). */
  exports: string[];
  /** `true`: every file linked to the document; ids: those; `false`: none. */
  files: boolean | number[];
  /** `firmada`: the Facturae attached signed (`.xsig`, as FACe takes it). */
  signed: boolean;
}

const KNOWN = ['to', 'cc', 'bcc', 'subject', 'body', 'lang', 'attach', 'attachfiles', 'firmada'];

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : [value]);

/**
 * Reads the request; every problem is a 422 naming its field, so that nothing is queued for a
 * request that cannot go as asked. `invoice`: e-invoice attachments are for invoices only.
 */
export function readSendRequest(body: unknown, invoice: boolean): SendRequest {
  const { fields, errors } = bodyFields(body, KNOWN);
  const addresses = (key: string): Address[] => {
    const parsed = parseAddresses(fields[key]);
    if (typeof parsed === 'string') {
      errors[key] = parsed;
      return [];
    }
    return parsed;
  };
  const [to, cc, bcc] = [addresses('to'), addresses('cc'), addresses('bcc')];
  if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) errors.to = 'too-many-recipients';
  const text = (key: string, max: number, header: boolean): string | undefined => {
    const value = fields[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') errors[key] = 'invalid-value';
    else if (header && hasControl(value)) errors[key] = 'header-injection';
    else if (value.length > max) errors[key] = 'too-long';
    else return value;
    return undefined;
  };
  const subject = text('subject', 300, true);
  const message = text('body', 100_000, false);
  const lang = text('lang', 10, true);
  if (lang !== undefined && !languageOf(lang)) errors.lang = 'invalid-value';
  const exports: string[] = [];
  if (fields.attach === undefined || fields.attach === null) exports.push('PDF');
  else {
    for (const item of listOf(fields.attach)) {
      const type = typeof item === 'string' ? exportTypeOf(item) : undefined;
      if (!type) errors.attach = 'invalid-export-type';
      else if (type.invoicesOnly && !invoice) errors.attach = 'export-type-unavailable';
      else if (!exports.includes(type.name)) exports.push(type.name);
    }
  }
  let files: boolean | number[] = false;
  const asked = fields.attachfiles;
  if (asked === true || asked === 'true' || asked === '1' || asked === 1) files = true;
  else if (asked !== undefined && asked !== null && asked !== false && asked !== 'false' && asked !== '0' && asked !== 0 && asked !== '') {
    const ids = listOf(asked).map((item) => Number(item));
    if (ids.some((id) => !Number.isInteger(id) || id < 1) || ids.length > 50) errors.attachfiles = 'invalid-value';
    else files = [...new Set(ids)];
  }
  const firmada = fields.firmada;
  const signed = firmada === true || firmada === 'true' || firmada === '1' || firmada === 1;
  if (!signed && firmada !== undefined && firmada !== null && firmada !== false && firmada !== 'false' && firmada !== '0' && firmada !== 0) errors.firmada = 'invalid-value';
  else if (signed && !exports.includes('FACTURAE')) errors.firmada = 'facturae-not-attached';
  if (Object.keys(errors).length) throw validationError(errors);
  return { to, cc, bcc, subject, body: message, lang, exports, files, signed };
}
