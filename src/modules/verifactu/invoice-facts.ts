import type { AppContext } from '../../app-context.ts';
import { dayIn } from '../../clock.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError, validationError } from '../../errors.ts';
import { dec, Dec } from '../../models/round.ts';
import { companyOf } from '../company/index.ts';
import { customerOf } from '../customers/index.ts';
import { headerOf, storedBreakdown, type Calculation, type DocumentReference, type DocumentType, type Row } from '../documents/index.ts';
import { paisModel } from '../geography/index.ts';
import { classificationKey, classify, desglose, recordTotals, type Classification } from './desglose.ts';
import type { AltaFacts, InvoiceId } from './record-content.ts';
import { recordsOfInvoice } from './record-reads.ts';
import { territoryOf, type Territory } from './registration-time.ts';
import { spanishTaxId } from '../fiscal/index.ts';
import { xmlDate, xmlText, type XmlTree } from './xml-tree.ts';

/** The first day records may carry (the regulation's start of application; AEAT validation of FechaExpedicionFactura). */
const FIRST_DATE = '2024-10-28';
/** ImporteTotal from which a record is a `Macrodato`. */
const MACRODATO = new Dec(100_000_000);
/** The largest simplified invoice (RD 1619/2012 art. 4; AEAT validation 1150). */
const SIMPLIFIED_LIMIT = new Dec(3000);
/** EU member states (ISO 3166 alpha-2) and the VAT number prefix each uses where it differs. */
const EU = new Set(['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'SE']);
const VAT_PREFIX: Readonly<Record<string, string>> = { GR: 'EL' };
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

/**
 * `IDDestinatario` of a full invoice: a Spanish NIF, or another country's id (L7 type). An EU VAT
 * number carries its country's prefix (AEAT validation 1122), added when the stored one lacks it.
 */
export async function recipientOf(known: KnownFacts, header: Row, customer: Row, issuer: string): Promise<XmlTree> {
  const name = xmlText(customer.razonsocial || header.nombrecliente || customer.nombre, 120);
  const raw = String(header.cifnif ?? '').trim();
  if (!raw) throw validationError({ cifnif: 'required' });
  const codpais = (header.codpais as string | null) || null;
  const country = codpais ? await known.countryOf(codpais) : undefined;
  if (codpais && !country?.codiso) throw validationError({ codpais: 'unknown-country' });
  const iso = codpais ? String(country!.codiso).toUpperCase() : 'ES';
  const passport = isPassport(customer.tipoidfiscal);
  if (iso === 'ES' && !passport) {
    const nif = spanishTaxId(raw);
    if (!nif) throw validationError({ cifnif: 'invalid-spanish-tax-id' });
    if (nif === issuer) throw validationError({ cifnif: 'same-as-issuer' });
    return { NombreRazon: name, NIF: nif };
  }
  const id = raw.toUpperCase().replace(/[\s.\-_/]/g, '');
  if (passport) return { NombreRazon: name, IDOtro: { CodigoPais: iso, IDType: '03', ID: xmlText(id, 20) } };
  if (!EU.has(iso)) return { NombreRazon: name, IDOtro: { CodigoPais: iso, IDType: '04', ID: xmlText(id, 20) } };
  const prefix = VAT_PREFIX[iso] ?? iso;
  return { NombreRazon: name, IDOtro: { CodigoPais: iso, IDType: '02', ID: xmlText(id.startsWith(prefix) ? id : `${prefix}${id}`, 20) } };
}

/** DescripcionOperacion: what the lines sell, else the invoice's kind and code. */
export function descriptionOf(header: Row, lines: Row[], rectifying: boolean): string {
  const texts = [...new Set(lines.map((line) => xmlText(line.descripcion, 500)).filter(Boolean))];
  return xmlText(texts.join('; '), 500) || `${rectifying ? 'Rectificación' : 'Factura'} ${String(header.codigo)}`;
}

/** The rectified invoice, refused when it was cancelled (it should never have been issued: nothing to rectify). */
async function rectifiedOf(db: DbExecutor, type: DocumentType, header: Row): Promise<Row | undefined> {
  if (header.idfacturarect === null || header.idfacturarect === undefined) return undefined;
  const last = (await recordsOfInvoice(db, Number(header.idfacturarect))).at(-1);
  if (last?.tipo === 'anulacion') throw new AppError('invoice-already-cancelled', { idregistro: last.id });
  return headerOf(db, type, header.idfacturarect);
}

/**
 * What an alta reads besides the invoice, when the caller has it at hand (a new invoice's writer,
 * from its preparation and the caches): the company, the customer, countries by code, the lines'
 * products' `tipo`. Anything not given is read in the caller's transaction.
 */
export interface KnownFacts {
  company?: Row;
  customer?: Row;
  countryOf(codpais: string): Promise<Row | undefined>;
  productTypes?: ReadonlyMap<number, string | null>;
  /** The whole invoice's stored breakdown, when its preparation computed it (PreparingDocument.breakdown). */
  breakdown?: () => Promise<Calculation>;
}

/**
 * Everything an alta says of a customer invoice, read in its creation's transaction (or known:
 * `KnownFacts`), or the 4xx that names what keeps it from being recorded as the AEAT accepts
 * records (docs/verifactu.md: the issuer's or the customer's tax id, a date, a code, the lines, a
 * simplified invoice's limits).
 */
export async function altaFactsOf(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, header: Row, lines: Row[], given?: Partial<KnownFacts>): Promise<{ facts: AltaFacts; territory: Territory }> {
  const known: KnownFacts = { countryOf: (codpais) => ctx.store.get(paisModel, codpais, db, 'all'), ...given };
  const company = known.company ?? (await companyOf(db, Number(header.idempresa)));
  const nif = issuerNif(company);
  const territory = territoryOf(company!);
  const fecha = String(header.fecha);
  // Not after today where the invoice is issued (the AEAT checks it on its own clock).
  if (fecha > dayIn(ctx.clock.now(), territory).date) throw validationError({ fecha: 'future-date' });
  if (fecha < FIRST_DATE) throw validationError({ fecha: 'before-verifactu' });
  const codigo = String(header.codigo);
  if (!NUMSERIE.test(codigo) || NUMSERIE_FORBIDDEN.test(codigo)) throw validationError({ codigo: 'invalid-for-verifactu' });
  const devengo = header.fechadevengo ? String(header.fechadevengo) : null;
  if (devengo && devengo > fecha) throw validationError({ fechadevengo: 'after-issue-date' });

  const simplified = (serie: unknown) => ref.series.get(String(serie))?.tipo === 'S';
  const original = await rectifiedOf(db, type, header);
  // R5 rectifies a simplified invoice (L2): decided by the invoice it corrects.
  const TipoFactura = original ? (simplified(original.codserie) ? 'R5' : 'R1') : simplified(header.codserie) ? 'F2' : 'F1';
  const full = TipoFactura === 'F1' || TipoFactura === 'R1';

  const customer = known.customer ?? (await customerOf(db, String(header.codcliente))) ?? {};
  const Desglose = await breakdownOf(db, ref, type, header, lines, customer, { travelAgency: company?.regimeniva === 'Agencias de viaje' }, known);
  const { cuotaTotal, importeTotal } = recordTotals(Desglose);
  if (!full && Desglose.some((detail) => detail.CalificacionOperacion === 'S2')) throw validationError({ lineas: 'reverse-charge-in-simplified' });
  const simplifiedAmount = Desglose.reduce((sum, detail) => sum.plus(dec(detail.BaseImponibleOimporteNoSujeto as string)).plus(dec((detail.CuotaRepercutida as string | undefined) ?? 0)), new Dec(0));
  if (TipoFactura === 'F2' && simplifiedAmount.abs().greaterThan(SIMPLIFIED_LIMIT)) throw validationError({ codserie: 'simplified-over-limit' });
  const facts: AltaFacts = {
    id: invoiceIdOf(nif, header),
    NombreRazonEmisor: xmlText(company!.nombre, 120),
    TipoFactura,
    ...(original ? { TipoRectificativa: 'I' as const, FacturasRectificadas: [invoiceIdOf(nif, original)] } : {}),
    ...(devengo && devengo < fecha ? { FechaOperacion: xmlDate(devengo) } : {}),
    DescripcionOperacion: descriptionOf(header, lines, Boolean(original)),
    ...(dec(importeTotal).abs().greaterThanOrEqualTo(MACRODATO) ? { Macrodato: 'S' as const } : {}),
    ...(full ? { Destinatarios: [await recipientOf(known, header, customer, nif)] } : {}),
    Desglose,
    CuotaTotal: cuotaTotal,
    ImporteTotal: importeTotal,
  };
  return { facts, territory };
}

/**
 * The details: the lines split by how the record qualifies them, each part summed by the document
 * engine as it summed the document (its stored taxes), then reconciled with the document's own
 * groups (desglose.ts); amounts in euros. A record that would not add up to its invoice is refused
 * rather than written. `partOf` splits the lines further (another regime's parts: each detail then
 * names its `Parte`), still reconciled with the same groups.
 */
export async function breakdownOf(db: DbExecutor, ref: DocumentReference, type: DocumentType, header: Row, lines: Row[], subject: Row, company: { travelAgency: boolean }, known: Pick<KnownFacts, 'productTypes' | 'breakdown'>, partOf?: (line: Row) => string): Promise<XmlTree[]> {
  const { productTypes } = known;
  const classified = new Map<string, { classification: Classification; lines: Row[] }>();
  for (const line of lines) {
    if (line.suplido) continue;
    const classification = classify({
      codimpuesto: (line.codimpuesto as string | null) ?? null, iva: Number(line.iva ?? 0), recargo: Number(line.recargo ?? 0),
      excepcioniva: (line.excepcioniva as string | null) ?? null,
      taxKind: line.codimpuesto ? (ref.taxes.taxes.get(String(line.codimpuesto))?.operacion ?? null) : null,
    }, company);
    if (partOf) classification.Parte = partOf(line);
    const key = classificationKey(classification);
    if (!classified.has(key)) classified.set(key, { classification, lines: [] });
    classified.get(key)!.lines.push(line);
  }
  const partitions = [...classified.values()];
  if (!partitions.length) throw validationError({ lineas: 'required' });
  const whole = (await (known.breakdown?.() ?? storedBreakdown(db, ref, type, header, lines, subject, productTypes))).groups;
  const parts = partitions.length === 1
    ? [{ classification: partitions[0]!.classification, groups: whole }]
    : await Promise.all(partitions.map(async (part) => ({ classification: part.classification, groups: (await storedBreakdown(db, ref, type, header, part.lines, subject, productTypes)).groups })));
  const toEuros = String(header.coddivisa ?? 'EUR') === 'EUR' ? (amount: Dec) => amount : (amount: Dec) => amount.div(dec(Number(header.tasaconv) || 1));
  const details = desglose(parts, whole, toEuros);
  if (!details.length) {
    // Lines whose amounts are all zero make no group: the record still states how they are taxed.
    const [first] = partitions;
    return desglose([{ classification: first!.classification, groups: [{ iva: Number(first!.lines[0]!.iva ?? 0), recargo: 0, neto: 0, totaliva: 0, totalrecargo: 0 }] }], [], toEuros);
  }
  if (details.length > 12) throw validationError({ lineas: 'too-many-tax-details' });
  const { cuotaTotal, importeTotal } = recordTotals(details);
  const expected = { cuota: toEuros(dec(header.totaliva as number).plus(dec(header.totalrecargo as number))), importe: toEuros(dec(header.neto as number).plus(dec(header.totaliva as number)).plus(dec(header.totalrecargo as number))) };
  // Each converted detail may round by half a cent: the totals may differ by that much per detail, never more.
  const tolerance = new Dec(0.005 * details.length + 0.005);
  if (dec(cuotaTotal).minus(expected.cuota).abs().greaterThan(tolerance) || dec(importeTotal).minus(expected.importe).abs().greaterThan(tolerance)) {
    throw new Error(`VERI*FACTU breakdown of invoice ${String(header.codigo)} does not add up to it: ${cuotaTotal}/${importeTotal}`);
  }
  return details;
}
