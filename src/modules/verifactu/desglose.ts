import type { Decimal } from 'decimal.js';
import { dec, Dec, round } from '../../models/round.ts';
import { xmlAmount, type XmlTree } from './xml-tree.ts';

/**
 * The `Desglose` of an invoice record: one `DetalleDesglose` per tax, regime, qualification (or
 * exemption), rate and surcharge, from the document's lines and its tax groups. The document's
 * own groups (one per VAT and surcharge rate) are what its totals sum; lines of one group that the
 * record tells apart (a 0 % export next to a 0 % domestic exemption) are summed apart and the cent
 * left by rounding goes to the largest part, so that the details always add up to the document.
 */

/** What of a line decides its detail. */
export interface LineTax {
  codimpuesto: string | null;
  iva: number;
  recargo: number;
  excepcioniva: string | null;
  /** The tax's kind as the installation keeps it (`impuestos.operacion`: ES_01 VAT, ES_03 IGIC, ES_04 IPSI). */
  taxKind: string | null;
}

export interface Classification {
  Impuesto: '01' | '02' | '03' | '05';
  ClaveRegimen?: string;
  CalificacionOperacion?: 'S1' | 'S2' | 'N1' | 'N2';
  OperacionExenta?: 'E1' | 'E2' | 'E3' | 'E4' | 'E5' | 'E6';
  /**
   * A further split another regime asks for (TicketBAI: services or deliveries of goods), carried
   * on each detail as `Parte`; never set for a VERI*FACTU record, whose XML has no such element.
   */
  Parte?: string;
}

/** Exemption causes of the installation (`excepcioniva`, Core/Lib/TaxExceptions.php) as exempt operations (L10). */
const EXEMPT: Readonly<Record<string, NonNullable<Classification['OperacionExenta']>>> = {
  ES_20: 'E1', ES_21: 'E2', ES_22: 'E3', ES_23_24: 'E4', ES_25: 'E5', ES_OTHER: 'E6',
};
/** Causes that are no exemption: not subject (L9 N1, N2) or reverse charge (S2). */
const QUALIFIED: Readonly<Record<string, NonNullable<Classification['CalificacionOperacion']>>> = {
  ES_7: 'N1', ES_14: 'N1', ES_OTHER_NOT_SUBJECT: 'N1', ES_68_70: 'N2', ES_84: 'S2',
};

function taxOf(line: LineTax): Classification['Impuesto'] {
  const kind = line.taxKind ?? '';
  const code = (line.codimpuesto ?? '').toUpperCase();
  if (kind === 'ES_03' || code.startsWith('IGIC')) return '03';
  if (kind === 'ES_04' || code.startsWith('IPSI')) return '02';
  if (kind === '' || kind === 'ES_01' || code.startsWith('IVA')) return '01';
  return '05';
}

/**
 * How the record qualifies a line (L1, L8A/L8B, L9, L10). Causes apply to untaxed lines only (no
 * rate, no surcharge): exemptions (L10), reverse charge (S2) and not-subject operations (N1, N2); a
 * line that carries a rate is subject (S1) whatever cause it names, so the record never drops tax
 * the invoice charges. An untaxed VAT line without a cause is exempt for other reasons (E6), while a
 * 0 % IGIC or IPSI rate is a subject rate. Regimes: exports and assimilated operations (E2, E3) 02
 * (AEAT validations 1199, 1286), a surcharge 18, a travel agency 05, else 01.
 */
export function classify(line: LineTax, company: { travelAgency: boolean }): Classification {
  const Impuesto = taxOf(line);
  const cause = line.excepcioniva ?? '';
  const untaxed = line.iva === 0 && line.recargo === 0;
  const qualified = untaxed ? QUALIFIED[cause] : undefined;
  const exempt = untaxed && !qualified ? (EXEMPT[cause] ?? (Impuesto === '01' ? 'E6' : undefined)) : undefined;
  const regime = Impuesto === '05' ? undefined
    : exempt === 'E2' || exempt === 'E3' ? '02'
      : line.recargo > 0 ? '18'
        : company.travelAgency ? '05' : '01';
  return {
    Impuesto,
    ...(regime ? { ClaveRegimen: regime } : {}),
    ...(exempt ? { OperacionExenta: exempt } : { CalificacionOperacion: qualified ?? 'S1' }),
  };
}

export const classificationKey = (c: Classification): string => [c.Impuesto, c.ClaveRegimen, c.CalificacionOperacion, c.OperacionExenta, c.Parte].join('|');

/** One tax group of a calculation: its rates and rounded sums, in the document's currency. */
export interface GroupSums {
  iva: number;
  recargo: number;
  neto: number;
  totaliva: number;
  totalrecargo: number;
}

interface Part {
  classification: Classification;
  iva: number;
  recargo: number;
  base: Decimal;
  cuota: Decimal;
  cuotaRecargo: Decimal;
}

const groupKey = (g: { iva: number; recargo: number }) => `${g.iva}|${g.recargo}`;

/**
 * The details of the record. `parts` are the groups of each classification's lines summed apart;
 * `whole` the document's own groups; `toEuros` converts an amount of the document's currency.
 * Details in the order their groups first appear; amounts in euros, each rounded to the cent.
 */
export function desglose(parts: Array<{ classification: Classification; groups: GroupSums[] }>, whole: GroupSums[], toEuros: (amount: Decimal) => Decimal): XmlTree[] {
  const details: Part[] = [];
  for (const { classification, groups } of parts) {
    for (const g of groups) details.push({ classification, iva: g.iva, recargo: g.recargo, base: dec(g.neto), cuota: dec(g.totaliva), cuotaRecargo: dec(g.totalrecargo) });
  }
  // Parts of one document group add up to it exactly: the rounding difference goes to the largest.
  for (const g of whole) {
    const members = details.filter((d) => groupKey(d) === groupKey(g));
    if (members.length < 2) {
      if (members[0]) Object.assign(members[0], { base: dec(g.neto), cuota: dec(g.totaliva), cuotaRecargo: dec(g.totalrecargo) });
      continue;
    }
    const largest = members.reduce((a, b) => (b.base.abs().greaterThan(a.base.abs()) ? b : a));
    const sum = (pick: (d: Part) => Decimal) => members.reduce((acc, d) => acc.plus(pick(d)), new Dec(0));
    largest.base = largest.base.plus(dec(g.neto).minus(sum((d) => d.base)));
    largest.cuota = largest.cuota.plus(dec(g.totaliva).minus(sum((d) => d.cuota)));
    largest.cuotaRecargo = largest.cuotaRecargo.plus(dec(g.totalrecargo).minus(sum((d) => d.cuotaRecargo)));
  }
  return details.map((d) => detail(d, toEuros));
}

function rate(value: number): string {
  return round(value, 2).toFixed(2);
}

function detail(part: Part, toEuros: (amount: Decimal) => Decimal): XmlTree {
  const c = part.classification;
  const out: XmlTree = c.Parte ? { Parte: c.Parte, Impuesto: c.Impuesto } : { Impuesto: c.Impuesto };
  if (c.ClaveRegimen) out.ClaveRegimen = c.ClaveRegimen;
  if (c.OperacionExenta) out.OperacionExenta = c.OperacionExenta;
  else out.CalificacionOperacion = c.CalificacionOperacion!;
  const euros = (amount: Decimal) => xmlAmount(round(toEuros(amount), 2));
  // Subject operations state rate and quota; reverse charge states zeros (AEAT validation 1198);
  // not-subject and exempt ones only their amount (1237, 1238).
  if (c.CalificacionOperacion === 'S1') out.TipoImpositivo = rate(part.iva);
  if (c.CalificacionOperacion === 'S2') out.TipoImpositivo = rate(0);
  out.BaseImponibleOimporteNoSujeto = euros(part.base);
  if (c.CalificacionOperacion === 'S1') out.CuotaRepercutida = euros(part.cuota);
  if (c.CalificacionOperacion === 'S2') out.CuotaRepercutida = xmlAmount(new Dec(0));
  if (c.CalificacionOperacion === 'S1' && part.recargo > 0) {
    out.TipoRecargoEquivalencia = rate(part.recargo);
    out.CuotaRecargoEquivalencia = euros(part.cuotaRecargo);
  }
  return out;
}

/** CuotaTotal and ImporteTotal of the details, as written. */
export function recordTotals(details: XmlTree[]): { cuotaTotal: string; importeTotal: string } {
  const sum = (name: string) => details.reduce((acc, d) => acc.plus(dec((d[name] as string | undefined) ?? 0)), new Dec(0));
  const cuota = sum('CuotaRepercutida').plus(sum('CuotaRecargoEquivalencia'));
  return { cuotaTotal: xmlAmount(cuota), importeTotal: xmlAmount(sum('BaseImponibleOimporteNoSujeto').plus(cuota)) };
}
