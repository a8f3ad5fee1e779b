import type { ExportParty } from '../export-view.ts';
import { cleanTaxId, countryOf, vatIdentifierOf } from './vat-identifier.ts';
import { oneLine } from './xml-element.ts';

/** A seller (BG-4) or buyer (BG-7) in EN 16931 terms, ready for either syntax. */
export interface EnParty {
  /** BT-27 / BT-44: the legal (registration) name. */
  name: string;
  /** BT-28 / BT-45: the trade name, when it differs from the legal name. */
  tradeName: string | null;
  /** BT-31 / BT-48, with its country prefix (BR-CO-09). */
  vatId: string | null;
  /** BT-30 / BT-47: the tax number as registered (a Spanish NIF is the legal registration id too). */
  legalId: string | null;
  street: string;
  city: string;
  postcode: string;
  province: string;
  /** BT-40 / BT-55, ISO 3166-1 alpha-2. */
  country: string;
  email: string;
  phone: string;
}

/** The party as EN 16931 names it; `withVatId` false drops the VAT id (BR-O-02 for not-subject invoices). */
export function enParty(party: ExportParty, withVatId: boolean): EnParty {
  const legal = oneLine(party.legalName) || oneLine(party.name);
  const trade = oneLine(party.name);
  const taxId = cleanTaxId(party.taxId ?? '');
  return {
    name: legal,
    tradeName: trade && trade !== legal ? trade : null,
    vatId: withVatId ? vatIdentifierOf(party) : null,
    legalId: taxId || null,
    street: oneLine(party.address.street),
    city: oneLine(party.address.city),
    postcode: oneLine(party.address.postcode),
    province: oneLine(party.address.province),
    country: countryOf(party),
    email: oneLine(party.email),
    phone: oneLine(party.phone),
  };
}
