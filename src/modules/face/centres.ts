import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import { lazyLibrary } from '../../lazy-library.ts';
import { childElements, type Element } from '../verifactu/index.ts';
import { CENTRES, dir3ClienteModel } from './dir3-model.ts';

const xmldom = lazyLibrary<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');
type Row = Record<string, unknown>;

/** The DIR3 centres of an invoice's customer: those of its billing address, else the customer's; undefined for a customer that is no public body. */
export async function centresOf(db: DbExecutor, codcliente: string, idcontacto: number | null): Promise<Row | undefined> {
  const rows = await db.selectFrom(dir3ClienteModel.table).selectAll().where('codcliente', '=', codcliente).execute();
  return rows.find((row) => idcontacto !== null && Number(row.idcontacto) === idcontacto) ?? rows.find((row) => row.idcontacto === null || row.idcontacto === undefined);
}

/** FACe needs the oficina contable, órgano gestor and unidad tramitadora: a 422 names those missing. */
export function requireFaceCentres(centres: Row | undefined): Row {
  if (!centres) throw validationError({ dir3: 'required' });
  const missing = Object.fromEntries(CENTRES.filter((centre) => centre.required && !centres[centre.field]).map((centre) => [centre.field, 'required']));
  if (Object.keys(missing).length) throw validationError(missing);
  return centres;
}

/**
 * The Facturae with the buyer's `AdministrativeCentres` (one `AdministrativeCentre` a role: its
 * DIR3 code, role 01-04, the buyer's own address, which the schema asks of each centre, and the
 * unit's name as its description),
 * in the schema's place: after the buyer's tax and party identification, before its entity.
 */
export function withAdministrativeCentres(xml: string, centres: Row): string {
  const { DOMParser, XMLSerializer } = xmldom();
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const root = doc.documentElement as unknown as Element;
  const parties = childElements(root).find((child) => child.localName === 'Parties');
  const buyer = parties && childElements(parties).find((child) => child.localName === 'BuyerParty');
  if (!buyer || childElements(buyer).some((child) => child.localName === 'AdministrativeCentres')) return xml;
  const entity = childElements(buyer).find((child) => child.localName === 'LegalEntity' || child.localName === 'Individual');
  const address = entity && childElements(entity).find((child) => child.localName === 'AddressInSpain' || child.localName === 'OverseasAddress');
  const list = doc.createElement('AdministrativeCentres');
  for (const centre of CENTRES) {
    const code = centres[centre.field];
    if (!code) continue;
    const element = doc.createElement('AdministrativeCentre');
    const add = (name: string, text: string) => element.appendChild(doc.createElement(name)).appendChild(doc.createTextNode(text));
    add('CentreCode', String(code));
    add('RoleTypeCode', centre.role);
    if (address) element.appendChild(address.cloneNode(true));
    // `Name` is a person's (the centre's contact): the unit's own name is its description.
    const label = String(centres[`nombre${centre.field}`] ?? '').trim().slice(0, 2500);
    if (label) add('CentreDescription', label);
    list.appendChild(element);
  }
  buyer.insertBefore(list, entity ?? null);
  return new XMLSerializer().serializeToString(doc as never);
}
