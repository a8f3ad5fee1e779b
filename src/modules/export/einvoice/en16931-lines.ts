import { dec, round, type Dec } from '../../../models/round.ts';
import type { ExportLine } from '../export-view.ts';
import { percentText } from './amount-text.ts';
import type { VatCategory } from './vat-category.ts';
import { oneLine } from './xml-element.ts';

/** An invoice line (BG-25) in EN 16931 terms: amounts already signed for the document (credit notes positive). */
export interface EnLine {
  /** BT-126. */
  id: string;
  /** BT-153 (required) and BT-154 (the full text when the name had to be shortened). */
  name: string;
  description: string | null;
  /** BT-155: the product reference. */
  sellerItemId: string | null;
  /** BT-129 (unit C62) and BT-146: the price is never negative (BR-27); a negative price moves its sign to the quantity. */
  quantity: Dec;
  price: Dec;
  /** BT-131, two decimals: the line's net amount after its own discounts, before global discounts. */
  netAmount: Dec;
  /** BG-27 / BG-28: the line's discounts as one allowance (negative discounts as one charge). */
  adjustment: { charge: boolean; amount: Dec; reason: string; reasonCode: string | null } | null;
  category: VatCategory;
}

const NAME_MAX = 100;

/** The discounts' text: `Descuento 10 %`, cascaded `Descuento 10 % + 5 %`. */
function discountReason(line: ExportLine): string {
  const rates = [line.discount, line.discount2].filter((rate) => rate !== 0).map(percentText);
  return ['Descuento', ...(rates.length ? [rates.join(' + ')] : [])].join(' ');
}

/**
 * One view line as BG-25. BT-131 is the stored net amount rounded to the cent; the gap to the
 * rounded gross amount (quantity x price) is the line allowance, so that BT-131 = gross -
 * allowance holds to the cent whatever the discounts' rounding.
 */
export function enLine(line: ExportLine, sign: 1 | -1, category: VatCategory): EnLine {
  const unitPrice = dec(line.unitPrice);
  const quantity = dec(line.quantity).times(sign);
  const gross = round(dec(line.grossAmount).times(sign), 2);
  const net = round(dec(line.netAmount).times(sign), 2);
  const gap = gross.minus(net);
  // Negative discounts raise the price: a charge. A discount on a negative (returned) line is an
  // allowance of negative amount, as the line's percentage gives it.
  const raises = (1 - line.discount / 100) * (1 - line.discount2 / 100) > 1;
  const text = oneLine(line.description);
  const name = oneLine(text, NAME_MAX) || oneLine(line.reference) || `Línea ${line.position}`;
  const description = line.description.trim();
  return {
    id: String(line.position),
    name,
    description: description && description !== name ? description : null,
    sellerItemId: oneLine(line.reference) || null,
    quantity: unitPrice.isNegative() ? quantity.negated() : quantity,
    price: unitPrice.abs(),
    netAmount: net,
    adjustment: gap.isZero() ? null
      : raises ? { charge: true, amount: gap.negated(), reason: `${discountReason(line)} (negativo)`, reasonCode: null }
        : { charge: false, amount: gap, reason: discountReason(line), reasonCode: '95' },
    category,
  };
}
