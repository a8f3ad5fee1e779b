import type { ExportParty } from '../export-view.ts';
import { cleanTaxId, vatIdentifierOf } from './vat-identifier.ts';
import { addText, oneLine, type XmlNode } from './xml-element.ts';

/** EU member states other than Spain, ISO 3166-1 alpha-3: Facturae's residence `U`. */
const EU = new Set(['AUT', 'BEL', 'BGR', 'HRV', 'CYP', 'CZE', 'DNK', 'EST', 'FIN', 'FRA', 'DEU', 'GRC', 'HUN', 'IRL', 'ITA', 'LVA', 'LTU', 'LUX', 'MLT', 'NLD', 'POL', 'PRT', 'ROU', 'SVK', 'SVN', 'SWE']);

/** The party's ISO 3166-1 alpha-3 country (Facturae's `CountryType`), Spain when unknown. */
export function countryAlpha3(party: Pick<ExportParty, 'address'>): string {
  const code = party.address.country?.trim().toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : 'ESP';
}

/** `R` resident in Spain, `U` in another EU state, `E` elsewhere. */
export function residenceOf(party: Pick<ExportParty, 'address'>): 'R' | 'U' | 'E' {
  const country = countryAlpha3(party);
  return country === 'ESP' ? 'R' : EU.has(country) ? 'U' : 'E';
}

/**
 * The tax number as Facturae wants it (`TextMin3Max30`): a Spanish NIF as is, an EU party's with
 * its VAT country prefix (intra-community operations), others as stored.
 */
export function facturaeTaxId(party: ExportParty): string {
  const residence = residenceOf(party);
  const id = (residence === 'U' ? vatIdentifierOf(party) : null) ?? cleanTaxId(party.taxId ?? '');
  return (id.length >= 3 ? id : id.padEnd(3, '0')).slice(0, 30);
}

/** Required text of a `TextMaxN` element: written even when empty (the schema has no minimum length). */
function required(parent: XmlNode, name: string, text: string, max: number): void {
  parent.ele(name).txt(oneLine(text, max));
}

function address(node: XmlNode, party: ExportParty): void {
  const country = countryAlpha3(party);
  const postcode = oneLine(party.address.postcode);
  // AddressInSpain wants a five-digit postcode; a Spanish address without one is written as overseas.
  if (country === 'ESP' && /^\d{5}$/.test(postcode)) {
    const spain = node.ele('AddressInSpain');
    required(spain, 'Address', party.address.street, 80);
    spain.ele('PostCode').txt(postcode);
    required(spain, 'Town', party.address.city, 50);
    required(spain, 'Province', party.address.province, 20);
    spain.ele('CountryCode').txt(country);
    return;
  }
  const overseas = node.ele('OverseasAddress');
  required(overseas, 'Address', party.address.street, 80);
  required(overseas, 'PostCodeAndTown', [postcode, oneLine(party.address.city)].filter(Boolean).join(' '), 50);
  required(overseas, 'Province', party.address.province, 20);
  overseas.ele('CountryCode').txt(country);
}

function contact(node: XmlNode, party: ExportParty): void {
  const phone = oneLine(party.phone, 15);
  const web = oneLine(party.web, 60);
  const email = oneLine(party.email, 60);
  if (!phone && !web && !email) return;
  const details = node.ele('ContactDetails');
  addText(details, 'Telephone', phone);
  addText(details, 'WebAddress', web);
  addText(details, 'ElectronicMail', email);
}

/**
 * An individual's name split as Facturae wants it: the first word as given name, the next as
 * first surname, the rest as second surname (the installation keeps one name field). A one-word
 * name is repeated as surname, which the schema requires.
 */
function individualName(name: string): { given: string; first: string; second: string } {
  const words = oneLine(name).split(' ').filter(Boolean);
  const given = words[0] ?? '';
  return { given, first: words[1] ?? given, second: words.slice(2).join(' ') };
}

/** A `BusinessType` (SellerParty, BuyerParty): tax identification, then a legal entity or an individual. */
export function facturaeParty(node: XmlNode, party: ExportParty): void {
  const identification = node.ele('TaxIdentification');
  identification.ele('PersonTypeCode').txt(party.naturalPerson ? 'F' : 'J');
  identification.ele('ResidenceTypeCode').txt(residenceOf(party));
  identification.ele('TaxIdentificationNumber').txt(facturaeTaxId(party));
  const legalName = oneLine(party.legalName) || oneLine(party.name);
  if (party.naturalPerson) {
    const person = node.ele('Individual');
    const { given, first, second } = individualName(legalName);
    required(person, 'Name', given, 40);
    required(person, 'FirstSurname', first, 40);
    if (second) required(person, 'SecondSurname', second, 40);
    address(person, party);
    contact(person, party);
    return;
  }
  const entity = node.ele('LegalEntity');
  required(entity, 'CorporateName', legalName, 80);
  const trade = oneLine(party.name, 40);
  if (trade && trade !== oneLine(legalName, 40)) entity.ele('TradeName').txt(trade);
  address(entity, party);
  contact(entity, party);
}
