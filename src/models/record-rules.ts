import { isValidIBAN } from 'ibantools';
import { validationError } from '../errors.ts';
import type { Values } from './define-model.ts';

/**
 * Small single-record checks shared by the model declarations (facturascripts-model.md 2.0):
 * code alphabets, e-mail and web addresses, and the record as it will be after a partial update.
 */

export type Errors = Record<string, string>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URL_LIKE = /^(https?:\/\/)?[^\s/?#.]+(\.[^\s/?#.]+)+(:\d+)?([/?#]\S*)?$/i;

/** The reference's code alphabet, case-insensitive, 1 to `max` characters. */
export const codeOf = (max: number): RegExp => new RegExp(`^[A-Z0-9_+.-]{1,${max}}$`, 'i');

/** The stored record overlaid with the values being written (updates are partial). */
export function current(values: Values, existing: Record<string, unknown> | undefined): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...existing };
  for (const name in values) {
    const value = values[name];
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

export const hasText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** A column's value as text: '' for null or undefined (the drivers give dates and timestamps as text already). */
export const textOf = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

export const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** A key code is checked when the record is created (it cannot change afterwards). */
export function checkCode(errors: Errors, values: Values, existing: unknown, field: string, pattern: RegExp): void {
  const code = values[field];
  if (!existing && typeof code === 'string' && !pattern.test(code)) errors[field] = 'invalid-code';
}

export function checkEmail(errors: Errors, values: Values, field = 'email'): void {
  const email = values[field];
  if (typeof email === 'string' && email !== '' && !EMAIL.test(email)) errors[field] = 'invalid-email';
}

export function checkUrl(errors: Errors, values: Values, field = 'web'): void {
  const web = values[field];
  if (typeof web === 'string' && web !== '' && !URL_LIKE.test(web)) errors[field] = 'invalid-url';
}

/** A string that is written and left blank (only spaces) where the reference requires a value. */
export function checkFilled(errors: Errors, values: Values, ...fields: string[]): void {
  for (const field of fields) {
    const value = values[field];
    if (typeof value === 'string' && value.trim() === '') errors[field] = 'required';
  }
}

/** An IBAN as the check reads it: without spaces, upper case. */
export const compactIban = (iban: string): string => iban.replace(/\s+/g, '').toUpperCase();

/**
 * Whether `iban` is a valid IBAN (ISO 13616): a country of the IBAN registry, its length and
 * national layout there, and the whole number (letters as 10..35, first four characters moved to
 * the end) leaving 1 modulo 97 (ibantools). Spaces and letter case are ignored.
 */
export function isIban(iban: string): boolean {
  return isValidIBAN(compactIban(iban));
}

/**
 * The number an upper-case text of letters and digits stands for (letters as 10..35) modulo 97,
 * reduced digit by digit (ISO 7064 MOD 97-10: IBANs, SEPA creditor identifiers).
 */
export function mod97(text: string): number {
  let remainder = 0;
  for (const ch of text) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
}

/** Whether `swift` is a SWIFT/BIC code (ISO 9362): bank, country, location and an optional branch. */
export const isSwift = (swift: string): boolean => /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(swift.trim().toUpperCase());

/**
 * Bank details as written: an IBAN that fails its check digits (`invalid-iban`, only when the
 * installation validates IBANs) or a malformed SWIFT/BIC (`invalid-swift`); empty values pass.
 */
export function checkBankDetails(errors: Errors, values: Values, validateIban: boolean): void {
  const { iban, swift } = values;
  if (validateIban && typeof iban === 'string' && iban.trim() !== '' && !isIban(iban)) errors.iban = 'invalid-iban';
  if (typeof swift === 'string' && swift.trim() !== '' && !isSwift(swift)) errors.swift = 'invalid-swift';
}

/**
 * The bank details of a record being saved, refused (422) as checkBankDetails says; the
 * installation's IBAN setting (`validateIban`) is read only when there is an IBAN to check.
 */
export async function refuseBadBankDetails(values: Values, validateIban: () => Promise<boolean>, errors: Errors = {}): Promise<void> {
  if (values.iban === undefined && values.swift === undefined && !Object.keys(errors).length) return;
  const checkIban = typeof values.iban === 'string' && values.iban.trim() !== '' && (await validateIban());
  checkBankDetails(errors, values, checkIban);
  if (Object.keys(errors).length) throw validationError(errors);
}
