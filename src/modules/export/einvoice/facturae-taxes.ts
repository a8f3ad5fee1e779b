import { dec, round, type Dec } from '../../../models/round.ts';
import type { ExportLine, ExportView } from '../export-view.ts';
import { amountText, rateText } from './amount-text.ts';
import { vatCategoryOf } from './vat-category.ts';
import type { XmlNode } from './xml-element.ts';

/** Facturae's `TaxTypeCodeType` for the output tax: 01 IVA, 02 IPSI (Ceuta, Melilla), 03 IGIC (Canarias). */
export function taxTypeCode(taxCode: string | null): '01' | '02' | '03' {
  const code = (taxCode ?? '').toUpperCase();
  return code.startsWith('IGIC') ? '03' : code.startsWith('IPSI') ? '02' : '01';
}

/** IRPF in Facturae's tax list. */
export const IRPF_TAX_TYPE = '04';

/** The cascaded global discounts as one factor (0.931 for 5 % + 2 %). */
export function globalFactor(view: Pick<ExportView, 'totals'>): Dec {
  return dec(1).minus(dec(view.totals.globalDiscount).div(100)).times(dec(1).minus(dec(view.totals.globalDiscount2).div(100)));
}

/** The rate written for a line or group: 0 where no tax is charged although the line keeps a rate (reverse charge). */
export function outputRate(line: Pick<ExportLine, 'taxCode' | 'vatRate' | 'vatException'>): number {
  return vatCategoryOf(line).rate ?? 0;
}

/** `<name><TotalAmount>x</TotalAmount></name>`: Facturae's `AmountType`, two decimals. */
export function amountElement(parent: XmlNode, name: string, value: Dec | number): void {
  parent.ele(name).ele('TotalAmount').txt(amountText(value));
}

/** One `Tax` of a `TaxOutputType`: rate, base and amount, with the equivalence surcharge when there is one. */
export function outputTax(parent: XmlNode, tax: { taxCode: string | null; rate: number; base: Dec | number; vat: Dec | number; surchargeRate: number; surcharge: Dec | number }): void {
  const node = parent.ele('Tax');
  node.ele('TaxTypeCode').txt(taxTypeCode(tax.taxCode));
  node.ele('TaxRate').txt(rateText(tax.rate));
  amountElement(node, 'TaxableBase', tax.base);
  amountElement(node, 'TaxAmount', tax.vat);
  if (tax.surchargeRate !== 0) {
    node.ele('EquivalenceSurcharge').txt(rateText(tax.surchargeRate));
    amountElement(node, 'EquivalenceSurchargeAmount', tax.surcharge);
  }
}

/** One withheld `Tax` (IRPF). */
export function withheldTax(parent: XmlNode, rate: number, base: Dec | number, amount: Dec | number): void {
  const node = parent.ele('Tax');
  node.ele('TaxTypeCode').txt(IRPF_TAX_TYPE);
  node.ele('TaxRate').txt(rateText(rate));
  amountElement(node, 'TaxableBase', base);
  amountElement(node, 'TaxAmount', amount);
}

/**
 * The document's IRPF by rate: base = its lines' net amounts after global discounts, amount =
 * base x rate; the last rate takes what rounding leaves so the amounts add up to the stored IRPF.
 * An IRPF without lines that carry it (set on the document) is one group on the whole base.
 */
export function withheldGroups(view: ExportView): Array<{ rate: number; base: Dec; amount: Dec }> {
  const total = dec(view.totals.irpf);
  if (total.isZero()) return [];
  const factor = globalFactor(view);
  const rates = [...new Set(view.lines.filter((line) => !line.supplied && line.irpfRate !== 0).map((line) => line.irpfRate))];
  if (!rates.length) return [{ rate: view.totals.irpfRate, base: dec(view.totals.net), amount: total }];
  let left = total;
  return rates.map((rate, index) => {
    const raw = view.lines.filter((line) => !line.supplied && line.irpfRate === rate).reduce((sum, line) => sum.plus(dec(line.netAmount)), dec(0));
    const base = round(raw.times(factor), 2);
    const amount = index === rates.length - 1 ? left : round(base.times(rate).div(100), 2);
    left = left.minus(amount);
    return { rate, base, amount };
  });
}
