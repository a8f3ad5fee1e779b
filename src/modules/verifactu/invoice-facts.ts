import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import { dec, Dec } from '../../models/round.ts';
import { companyOf } from '../company/index.ts';
import { customerOf } from '../customers/index.ts';
import { headerOf, storedBreakdown, type DocumentReference, type DocumentType, type Row } from '../documents/index.ts';
import { paisModel } from '../geography/index.ts';
import { classificationKey, classify, desglose, recordTotals, type Classification } from './desglose.ts';
import type { AltaFacts, InvoiceId } from './record-content.ts';
import { territoryOf, type Territory } from './registration-time.ts';
import { normalizeTaxId, spanishTaxId } from './spanish-tax-id.ts';
import { xmlDate, xmlText, type XmlTree } from './xml-tree.ts';

/** The first day records may carry (the regulation's start of application; AEAT validation of FechaExpedicionFactura). */
const FIRST_DATE = '2024-10-28';
/** ImporteTotal from which a record is a `Macrodato`. */
const MACRODATO = new Dec(100_000_000);
const EU = new Set(['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'SE']);
/** NumSerieFactura: printable ASCII but the characters the AEAT refuses. */
const NUMSERIE = /^[\x20-\x7e]{1,60}$/;
const NUMSERIE_FORBIDDEN = /["'<>=]/;

/** The issuer's NIF, or the 422 that names the company's `cifnif`. */
export function issuerNif(company: Row | undefined): string {
  const nif = spanishTaxId((company?.cifnif as string | null | undefined) ?? null);
  if (!nif) throw validationError({ cifnif: 'invalid-spanish-tax-id' });
  return nif;
}

/** How a record names an invoice: its issuer, its code, its date. */
export function invoiceIdOf(nif: string, invoice: Row): InvoiceId {
  return { IDEmisorFactura: nif, NumSerieFactura: String(invoice.codigo), FechaExpedicionFactura: xmlDate(String(invoice.fecha)) };
}

function isPassport(type: unknown): boolean {
  return /pasaporte|passport/i.test(String(type ?? ''));
}

/** `IDDestinatario` of a full invoice: a Spanish NIF, or another country's id (L7 type). */
async function recipientOf(ctx: AppContext, db: DbExecutor, header: Row, customer: Row, issuer: string): Promise<XmlTree> {
  const name = xmlText(customer.razonsocial || header.nombrecliente || customer.nombre, 120);
  const raw = String(header.cifnif ?? '').trim();
  if (!raw) throw validationError({ cifnif: 'required' });
  const codpais = (header.codpais as string | null) || (customer.codpais as string | null) || null;
  const country = codpais ? await ctx.store.get(paisModel, codpais, db, 'all') : undefined;
  const iso = String(country?.codiso ?? (codpais === null ? 'ES' : codpais.slice(0, 2))).toUpperCase();
  const passport = isPassport(customer.tipoidfiscal);
  if (iso === 'ES' && !passport) {
    const nif = spanishTaxId(raw);
    if (!nif) throw validationError({ cifnif: 'invalid-spanish-tax-id' });
    if (nif === issuer) throw validationError({ cifnif: 'same-as-issuer' });
    return { NombreRazon: name, NIF: nif };
  }
  const id = xmlText(normalizeTaxId(raw), 20);
  return { NombreRazon: name, IDOtro: { CodigoPais: iso, IDType: passport ? '03' : EU.has(iso) ? '02' : '04', ID: id } };
}

/** DescripcionOperacion: what the lines sell, else the invoice's kind and code. */
function descriptionOf(header: Row, lines: Row[], rectifying: boolean): string {
  const texts = [...new Set(lines.map((line) => String(line.descripcion ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean))];
  return xmlText(texts.join('; '), 500) || `${rectifying ? 'Rectificación' : 'Factura'} ${String(header.codigo)}`;
}

/**
 * Everything an alta says of a customer invoice, read in its creation's transaction, or the 422
 * that names what keeps it from being recorded (the issuer's or the customer's tax id, a date the
 * AEAT refuses, a code with characters it refuses, no lines, more than 12 tax details).
 */
export async function altaFactsOf(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, header: Row, lines: Row[]): Promise<{ facts: AltaFacts; territory: Territory }> {
  const company = await companyOf(db, Number(header.idempresa));
  const nif = issuerNif(company);
  const fecha = String(header.fecha);
  if (fecha > ref.today.date) throw validationError({ fecha: 'future-date' });
  if (fecha < FIRST_DATE) throw validationError({ fecha: 'before-verifactu' });
  const codigo = String(header.codigo);
  if (!NUMSERIE.test(codigo) || NUMSERIE_FORBIDDEN.test(codigo)) throw validationError({ codigo: 'invalid-for-verifactu' });
  const devengo = header.fechadevengo ? String(header.fechadevengo) : null;
  if (devengo && devengo > fecha) throw validationError({ fechadevengo: 'after-issue-date' });

  const simplified = (serie: unknown) => ref.series.get(String(serie))?.tipo === 'S';
  const original = header.idfacturarect ? await headerOf(db, type, header.idfacturarect) : undefined;
  const TipoFactura = original ? (simplified(original.codserie) || simplified(header.codserie) ? 'R5' : 'R1') : simplified(header.codserie) ? 'F2' : 'F1';
  const full = TipoFactura === 'F1' || TipoFactura === 'R1';

  const customer = (await customerOf(db, String(header.codcliente))) ?? {};
  const Desglose = await breakdownOf(db, ref, type, header, lines, customer, { travelAgency: company?.regimeniva === 'Agencias de viaje' });
  const { cuotaTotal, importeTotal } = recordTotals(Desglose);
  const facts: AltaFacts = {
    id: invoiceIdOf(nif, header),
    NombreRazonEmisor: xmlText(company!.nombre, 120),
    TipoFactura,
    ...(original ? { TipoRectificativa: 'I' as const, FacturasRectificadas: [invoiceIdOf(nif, original)] } : {}),
    ...(devengo && devengo < fecha ? { FechaOperacion: xmlDate(devengo) } : {}),
    DescripcionOperacion: descriptionOf(header, lines, Boolean(original)),
    ...(dec(importeTotal).abs().greaterThanOrEqualTo(MACRODATO) ? { Macrodato: 'S' as const } : {}),
    ...(full ? { Destinatarios: [await recipientOf(ctx, db, header, customer, nif)] } : {}),
    Desglose,
    CuotaTotal: cuotaTotal,
    ImporteTotal: importeTotal,
  };
  return { facts, territory: territoryOf(company!) };
}

/**
 * The details: the lines split by how the record qualifies them, each part summed by the document
 * engine as it summed the document (its stored taxes), then reconciled with the document's own
 * groups (desglose.ts); amounts in euros.
 */
async function breakdownOf(db: DbExecutor, ref: DocumentReference, type: DocumentType, header: Row, lines: Row[], subject: Row, company: { travelAgency: boolean }): Promise<XmlTree[]> {
  const classified = new Map<string, { classification: Classification; lines: Row[] }>();
  for (const line of lines) {
    if (line.suplido) continue;
    const classification = classify({
      codimpuesto: (line.codimpuesto as string | null) ?? null, iva: Number(line.iva ?? 0), recargo: Number(line.recargo ?? 0),
      excepcioniva: (line.excepcioniva as string | null) ?? null,
      taxKind: line.codimpuesto ? (ref.taxes.taxes.get(String(line.codimpuesto))?.operacion ?? null) : null,
    }, company);
    const key = classificationKey(classification);
    if (!classified.has(key)) classified.set(key, { classification, lines: [] });
    classified.get(key)!.lines.push(line);
  }
  if (!classified.size) throw validationError({ lineas: 'required' });
  const whole = (await storedBreakdown(db, ref, type, header, lines, subject)).groups;
  const parts = classified.size === 1
    ? [{ classification: [...classified.values()][0]!.classification, groups: whole }]
    : await Promise.all([...classified.values()].map(async (part) => ({ classification: part.classification, groups: (await storedBreakdown(db, ref, type, header, part.lines, subject)).groups })));
  const rate = Number(header.tasaconv ?? 1) || 1;
  const toEuros = String(header.coddivisa ?? 'EUR') === 'EUR' ? (amount: Dec) => amount : (amount: Dec) => amount.div(dec(rate));
  let details = desglose(parts, whole, toEuros);
  // Lines whose amounts are all zero make no group: the record still states how they are taxed.
  if (!details.length) details = desglose([{ classification: [...classified.values()][0]!.classification, groups: [{ iva: Number([...classified.values()][0]!.lines[0]!.iva ?? 0), recargo: 0, neto: 0, totaliva: 0, totalrecargo: 0 }] }], [], toEuros);
  if (details.length > 12) throw validationError({ lineas: 'too-many-tax-details' });
  return details;
}
