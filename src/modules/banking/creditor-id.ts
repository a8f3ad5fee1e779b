import { mod97 } from '../../models/record-rules.ts';

/**
 * The SEPA creditor identifier (AT-02, EPC262-08; ../shared/reference/sepa.md section 4): country,
 * two check digits (ISO 7064 MOD 97-10 over the national identifier, the country and `00`), a
 * three-character business code that the check leaves out, and the national identifier (in Spain
 * the NIF): `ES77000B85626240` for B85626240 with suffix 000.
 */
export function creditorIdentifier(country: string, nationalId: string, businessCode = '000'): string {
  const national = nationalId.replace(/[\s.-]+/g, '').toUpperCase();
  const check = String(98 - mod97(`${national}${country.toUpperCase()}00`)).padStart(2, '0');
  return `${country.toUpperCase()}${check}${(businessCode || '000').toUpperCase().padStart(3, '0').slice(0, 3)}${national}`;
}

/** Whether a creditor identifier's check digits hold (the business code excluded). */
export function isCreditorIdentifier(identifier: string): boolean {
  const compact = identifier.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/.test(compact)) return false;
  return mod97(compact.slice(7) + compact.slice(0, 4)) === 1;
}
