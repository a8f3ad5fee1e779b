import type { ExportLine } from '../export-view.ts';

/** EN 16931 VAT category codes (UNCL 5305 subset, BT-151 / BT-118) this exporter produces. */
export type VatCategoryCode = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O' | 'L' | 'M';

export interface VatCategory {
  code: VatCategoryCode;
  /** BT-152 / BT-119; null for `O` (not subject), which must carry no rate (BR-O-05). */
  rate: number | null;
  /** BT-121 (CEF VATEX code), when one fits the cause. */
  exemptionCode: string | null;
  /** BT-120: the legal reason, required for E, AE, K, G, O (BR-E-10 ...). */
  exemptionText: string | null;
}

/** The identity of a breakdown group: category and rate (`S|21`, `E|0`, `O|`). */
export function categoryKey(category: Pick<VatCategory, 'code' | 'rate'>): string {
  return `${category.code}|${category.rate ?? ''}`;
}

const LAW = 'Ley 37/1992 del IVA';

/**
 * The installation's exemption causes (`excepcioniva`, Core/Lib/TaxExceptions.php) as EN 16931
 * categories. Reverse charge (`ES_84`) keeps the line's VAT rate in the installation but no VAT
 * is charged, so its category has rate 0 like every non-taxed category.
 */
const EXCEPTIONS: Readonly<Record<string, Omit<VatCategory, 'rate'>>> = {
  ES_20: { code: 'E', exemptionCode: 'VATEX-EU-132', exemptionText: `Operación exenta por aplicación del artículo 20 de la ${LAW}` },
  ES_21: { code: 'G', exemptionCode: 'VATEX-EU-G', exemptionText: `Exportación exenta (artículo 21 de la ${LAW})` },
  ES_22: { code: 'E', exemptionCode: null, exemptionText: `Operación exenta por aplicación del artículo 22 de la ${LAW}` },
  ES_23_24: { code: 'E', exemptionCode: null, exemptionText: `Operación exenta por aplicación de los artículos 23 y 24 de la ${LAW}` },
  ES_25: { code: 'K', exemptionCode: 'VATEX-EU-IC', exemptionText: `Entrega intracomunitaria exenta (artículo 25 de la ${LAW})` },
  ES_68_70: { code: 'AE', exemptionCode: 'VATEX-EU-AE', exemptionText: `No sujeta en España por reglas de localización (artículos 68 a 70 de la ${LAW}): inversión del sujeto pasivo` },
  ES_84: { code: 'AE', exemptionCode: 'VATEX-EU-AE', exemptionText: 'Inversión del sujeto pasivo' },
  ES_7: { code: 'O', exemptionCode: 'VATEX-EU-O', exemptionText: `Operación no sujeta (artículo 7 de la ${LAW})` },
  ES_14: { code: 'O', exemptionCode: 'VATEX-EU-O', exemptionText: `Operación no sujeta (artículo 14 de la ${LAW})` },
  ES_OTHER_NOT_SUBJECT: { code: 'O', exemptionCode: 'VATEX-EU-O', exemptionText: 'Operación no sujeta' },
  ES_OTHER: { code: 'E', exemptionCode: null, exemptionText: 'Operación exenta' },
};

/** Causes whose line keeps a VAT rate in the installation although no VAT is charged. */
const UNTAXED_WITH_RATE = new Set(['ES_84', 'ES_68_70']);

/**
 * The category of a taxed line. Canary (IGIC) and Ceuta/Melilla (IPSI) taxes, named by the
 * installation's tax codes, are categories L and M; IGIC's zero rate (`IGIC0`) is zero rated (Z),
 * since the CII rules want an IGIC rate above 0 (BR-AF-05/06/07). Any other 0 % rate with no cause
 * is zero rated (Z) too.
 */
export function vatCategoryOf(line: Pick<ExportLine, 'taxCode' | 'vatRate' | 'vatException'>): VatCategory {
  const cause = line.vatException ? EXCEPTIONS[line.vatException] : undefined;
  if (cause && (line.vatRate === 0 || UNTAXED_WITH_RATE.has(line.vatException!))) {
    return { ...cause, rate: cause.code === 'O' ? null : 0 };
  }
  const code = (line.taxCode ?? '').toUpperCase();
  if (code.startsWith('IGIC') && line.vatRate > 0) return { code: 'L', rate: line.vatRate, exemptionCode: null, exemptionText: null };
  if (code.startsWith('IPSI')) return { code: 'M', rate: line.vatRate, exemptionCode: null, exemptionText: null };
  if (line.vatRate > 0) return { code: 'S', rate: line.vatRate, exemptionCode: null, exemptionText: null };
  if (line.vatException) return { code: 'E', rate: 0, exemptionCode: null, exemptionText: `Operación exenta (${line.vatException})` };
  return { code: 'Z', rate: 0, exemptionCode: null, exemptionText: null };
}

/** Supplied amounts (`suplidos`): outside the taxable base by law; carried as exempt (see docs/export-einvoice.md). */
export const SUPPLIED_CATEGORY: VatCategory = {
  code: 'E', rate: 0, exemptionCode: null,
  exemptionText: `Suplidos: importes pagados en nombre y por cuenta del cliente, excluidos de la base imponible (artículo 78.Tres.3º de la ${LAW})`,
};

/** The equivalence surcharge as a document-level charge: no VAT is charged on it, and Z needs no exemption reason. */
export const SURCHARGE_CATEGORY: VatCategory = { code: 'Z', rate: 0, exemptionCode: null, exemptionText: null };

/** A not-subject cause next to other categories (BR-O-11 allows O alone only) is carried as exempt, its reason kept. */
export function withoutNotSubject(category: VatCategory): VatCategory {
  return category.code === 'O' ? { ...category, code: 'E', rate: 0, exemptionCode: null } : category;
}
