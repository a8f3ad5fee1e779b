import { dec, round, type Dec } from '../../../models/round.ts';
import type { ExportLine } from '../export-view.ts';
import { numberText, percentText } from './amount-text.ts';
import { outputRate, outputTax, taxTypeCode, withheldTax } from './facturae-taxes.ts';
import { vatCategoryOf } from './vat-category.ts';
import { addText, oneLine, type XmlNode } from './xml-element.ts';

/** Line amounts keep their exact value: Facturae allows eight decimals there (`DoubleUpToEightDecimalType`). */
const exact = (value: Dec | number) => numberText(value, 8);

/** The line's discounts as text (`10 % + 5 %`). */
function ratesText(line: ExportLine): string {
  return [line.discount, line.discount2].filter((rate) => rate !== 0).map(percentText).join(' + ');
}

/**
 * One `InvoiceLine` of a taxed line: TotalCost = quantity x price, GrossAmount = TotalCost -
 * discounts (the stored net amount). The line's taxes are informative in Facturae; they are
 * computed on the line's share of the base after the document's global discounts (`factor`).
 */
export function facturaeItem(parent: XmlNode, line: ExportLine, factor: Dec): void {
  const node = parent.ele('InvoiceLine');
  node.ele('ItemDescription').txt(oneLine(line.description, 2500) || oneLine(line.reference) || `Línea ${line.position}`);
  node.ele('Quantity').txt(exact(line.quantity));
  node.ele('UnitOfMeasure').txt('01');
  node.ele('UnitPriceWithoutTax').txt(exact(line.unitPrice));
  node.ele('TotalCost').txt(exact(line.grossAmount));
  const gap = dec(line.grossAmount).minus(dec(line.netAmount));
  const effective = dec(1).minus(dec(1).minus(dec(line.discount).div(100)).times(dec(1).minus(dec(line.discount2).div(100)))).times(100);
  if (!gap.isZero() && effective.isPositive()) {
    const discount = node.ele('DiscountsAndRebates').ele('Discount');
    discount.ele('DiscountReason').txt(`Descuento ${ratesText(line)}`);
    discount.ele('DiscountRate').txt(exact(effective));
    discount.ele('DiscountAmount').txt(exact(gap));
  } else if (!gap.isZero()) {
    const charge = node.ele('Charges').ele('Charge');
    charge.ele('ChargeReason').txt(`Descuento negativo ${ratesText(line)}`);
    charge.ele('ChargeRate').txt(exact(effective.negated()));
    charge.ele('ChargeAmount').txt(exact(gap.negated()));
  }
  node.ele('GrossAmount').txt(exact(line.netAmount));

  const base = round(dec(line.netAmount).times(factor), 2);
  if (line.irpfRate !== 0) withheldTax(node.ele('TaxesWithheld'), line.irpfRate, base, round(base.times(line.irpfRate).div(100), 2));
  const rate = outputRate(line);
  outputTax(node.ele('TaxesOutputs'), {
    taxCode: line.taxCode, rate, base, vat: round(base.times(rate).div(100), 2),
    surchargeRate: line.surchargeRate, surcharge: round(base.times(line.surchargeRate).div(100), 2),
  });
  // The reason of an exempt or not-subject line, preceded by its tax's code (the schema's convention).
  const reason = line.vatRate === 0 || rate === 0 ? vatCategoryOf(line).exemptionText : null;
  addText(node, 'AdditionalLineItemInformation', reason ? `${taxTypeCode(line.taxCode)} ${reason}` : null);
  addText(node, 'ArticleCode', oneLine(line.reference, 20));
}
