import type { ExportParty } from '../export-view.ts';

/** The tax id as written in an e-invoice: upper case, no spaces, dots or dashes. */
export function cleanTaxId(taxId: string): string {
  return taxId.toUpperCase().replace(/[\s.\-_/]/g, '');
}

/** ISO 3166-1 alpha-2 of the party's address; Spain when the installation has none (its home country). */
export function countryOf(party: Pick<ExportParty, 'address'>): string {
  const code = party.address.countryIso2?.trim().toUpperCase();
  return code && /^[A-Z]{2}$/.test(code) ? code : 'ES';
}

/**
 * The VAT identifier (BT-31 seller, BT-48 buyer): BR-CO-09 wants an ISO 3166-1 alpha-2 prefix,
 * and Spanish NIFs are stored without one (`B12345674` -> `ESB12345674`). An id that already
 * starts with its country's prefix (Greece: `EL`) is kept. Null when the party has no tax id or
 * the id is not a tax number (a passport).
 */
export function vatIdentifierOf(party: Pick<ExportParty, 'taxId' | 'taxIdType' | 'address'>): string | null {
  const id = cleanTaxId(party.taxId ?? '');
  if (id.length < 3 || /pasaporte|passport/i.test(party.taxIdType ?? '')) return null;
  const country = countryOf(party);
  const prefix = country === 'GR' ? 'EL' : country;
  return id.startsWith(prefix) ? id : `${prefix}${id}`;
}
