import { dec, round, type Dec } from '../../../models/round.ts';
import type { ExportView } from '../export-view.ts';
import { percentText } from './amount-text.ts';
import type { EnLine } from './en16931-lines.ts';
import { categoryKey, SUPPLIED_CATEGORY, SURCHARGE_CATEGORY, vatCategoryOf, type VatCategory } from './vat-category.ts';

/** A document-level allowance (BG-20) or charge (BG-21). */
export interface EnAllowanceCharge {
  charge: boolean;
  amount: Dec;
  reason: string;
  /** BT-98 (UNCL 5189) for allowances; charges carry only their reason text. */
  reasonCode: string | null;
  category: VatCategory;
}

/** A VAT breakdown group (BG-23). */
export interface EnVatGroup {
  /** With the group's exemption reason: the distinct reasons of its members, joined. */
  category: VatCategory;
  base: Dec;
  vat: Dec;
}

interface Group {
  category: VatCategory;
  reasons: string[];
  codes: Set<string | null>;
  base: Dec;
  vat: Dec;
  lineSum: Dec;
  charges: Dec;
}

const zero = () => dec(0);

/**
 * The VAT breakdown and the document-level allowances and charges that make EN 16931's sums hold
 * to the cent (BR-CO-10/13, BR-S-08, BR-E-08, BR-Z-08 ...). Bases and VAT come from the view's tax
 * groups, as stored; each category gets one balancing amount: its lines' net amounts (BT-131) plus
 * its charges minus its base. That amount is the document's global discount (an allowance) or, when
 * there is none, the rounding gap between rounded line amounts and the stored base. A view group
 * whose lines fall in several categories (0 % lines with different exemption causes) is split by
 * its lines' share, the last category taking the remainder so that the group's totals stay exact.
 */
export function enBreakdown(view: ExportView, lines: readonly EnLine[], sign: 1 | -1): { groups: EnVatGroup[]; allowanceCharges: EnAllowanceCharge[] } {
  const groups = new Map<string, Group>();
  const groupOf = (category: VatCategory): Group => {
    const key = categoryKey(category);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { category, reasons: [], codes: new Set(), base: zero(), vat: zero(), lineSum: zero(), charges: zero() }));
    if (category.exemptionText && !group.reasons.includes(category.exemptionText)) group.reasons.push(category.exemptionText);
    group.codes.add(category.exemptionCode);
    return group;
  };
  for (const line of lines) groupOf(line.category).lineSum = groupOf(line.category).lineSum.plus(line.netAmount);

  const factor = dec(1).minus(dec(view.totals.globalDiscount).div(100)).times(dec(1).minus(dec(view.totals.globalDiscount2).div(100)));
  const allowanceCharges: EnAllowanceCharge[] = [];
  view.taxes.forEach((tax) => {
    const members = view.lines.map((line, index) => ({ line, enLine: lines[index]! }))
      .filter(({ line }) => !line.supplied && line.vatRate === tax.vatRate && line.surchargeRate === tax.surchargeRate);
    const categories = [...new Map(members.map(({ enLine }) => [categoryKey(enLine.category), enLine.category])).values()];
    if (!categories.length) categories.push(vatCategoryOf({ taxCode: tax.taxCode, vatRate: tax.vatRate, vatException: tax.vatException }));
    let base = dec(tax.base).times(sign);
    let vat = dec(tax.vat).times(sign);
    categories.forEach((category, index) => {
      const group = groupOf(category);
      if (index === categories.length - 1) {
        group.base = group.base.plus(base);
        group.vat = group.vat.plus(vat);
        return;
      }
      const raw = members.filter(({ enLine }) => categoryKey(enLine.category) === categoryKey(category))
        .reduce((sum, { line }) => sum.plus(dec(line.netAmount)), zero()).times(factor).times(sign);
      const share = round(raw, 2);
      const shareVat = round(share.times(category.rate ?? 0).div(100), 2);
      group.base = group.base.plus(share);
      group.vat = group.vat.plus(shareVat);
      base = base.minus(share);
      vat = vat.minus(shareVat);
    });
    const surcharge = round(dec(tax.surcharge).times(sign), 2);
    if (!surcharge.isZero()) {
      // The equivalence surcharge: a charge outside the VAT base (see SURCHARGE_CATEGORY).
      const group = groupOf(SURCHARGE_CATEGORY);
      group.base = group.base.plus(surcharge);
      group.charges = group.charges.plus(surcharge);
      allowanceCharges.push({
        charge: true, amount: surcharge, reasonCode: null, category: SURCHARGE_CATEGORY,
        reason: `Recargo de equivalencia ${percentText(tax.surchargeRate)} sobre la base al ${percentText(tax.vatRate)}`,
      });
    }
  });
  const supplied = round(dec(view.totals.supplied).times(sign), 2);
  if (!supplied.isZero()) groupOf(SUPPLIED_CATEGORY).base = groupOf(SUPPLIED_CATEGORY).base.plus(supplied);

  const discounts = [view.totals.globalDiscount, view.totals.globalDiscount2].filter((rate) => rate !== 0).map(percentText);
  for (const group of groups.values()) {
    const gap = group.lineSum.plus(group.charges).minus(group.base);
    if (gap.isZero()) continue;
    // With global discounts the gap is the discount (negative on a category of negative lines);
    // without, it is a rounding cent, an allowance or a charge by its sign.
    const rounding = 'Ajuste de redondeo';
    allowanceCharges.push(discounts.length > 0
      ? { charge: false, amount: gap, reasonCode: '95', reason: `Descuento global ${discounts.join(' + ')}`, category: group.category }
      : gap.isPositive()
        ? { charge: false, amount: gap, reasonCode: null, reason: rounding, category: group.category }
        : { charge: true, amount: gap.negated(), reasonCode: null, reason: rounding, category: group.category });
  }
  return {
    groups: [...groups.values()].map((group) => ({
      category: {
        ...group.category,
        exemptionText: group.reasons.join('; ') || null,
        exemptionCode: group.codes.size === 1 ? [...group.codes][0]! : null,
      },
      base: group.base,
      vat: group.vat,
    })),
    allowanceCharges,
  };
}
