import type { PdfContext } from './pdf-context.ts';
import { COLORS, type TextStyle } from './pdf-pen.ts';

const SMALL: TextStyle = { size: 8.5 };
const HEAD: TextStyle = { size: 7.5, bold: true, color: COLORS.muted };
const TOTAL: TextStyle = { size: 11.5, bold: true, color: COLORS.onAccent };
const PAD = { x: 5, y: 3.5 } as const;
const TOTALS_WIDTH = 215;

/**
 * The tax breakdown (one row per VAT and surcharge rate: base, rate, VAT, and the surcharge
 * columns when any line has one) at the left and the totals at the right: subtotal and global
 * discounts when there are any, tax base, VAT, surcharge, IRPF and supplied amounts when present,
 * and the total to pay. Drawn as one block that moves to a new page whole when it does not fit.
 */
export function drawTotals(ctx: PdfContext): void {
  const { pen, view, labels, fmt } = ctx;
  const { totals } = view;
  const lineHeight = pen.lineHeight(SMALL);

  // The totals column: label, amount.
  const rows: Array<[string, string]> = [];
  if (totals.globalDiscount || totals.globalDiscount2) {
    const rates = [totals.globalDiscount, totals.globalDiscount2].filter(Boolean).map((rate) => fmt.percent(rate)).join(' + ');
    rows.push([labels.lineTotal, fmt.money(totals.lineTotal)]);
    rows.push([`${labels.globalDiscount} ${rates}`, fmt.money(totals.net - totals.lineTotal)]);
  }
  rows.push([labels.taxBase, fmt.money(totals.net)]);
  rows.push([labels.vat, fmt.money(totals.vat)]);
  if (totals.surcharge) rows.push([labels.surcharge, fmt.money(totals.surcharge)]);
  if (totals.irpf) rows.push([`${labels.irpf} ${fmt.percent(totals.irpfRate)}`, fmt.money(-totals.irpf)]);
  if (totals.supplied) rows.push([labels.supplied, fmt.money(totals.supplied)]);
  const inner = TOTALS_WIDTH - 2 * PAD.x;
  const laidOut = rows.map(([label, value]) => {
    const valueWidth = pen.measure(value, SMALL);
    return { label: pen.wrap(label, inner - valueWidth - 8, SMALL), value };
  });
  const totalValue = fmt.money(totals.total);
  const totalLabel = pen.wrap(labels.total.toLocaleUpperCase(labels.locale), inner - pen.measure(totalValue, TOTAL) - 8, TOTAL);
  const totalHeight = totalLabel.length * pen.lineHeight(TOTAL) + 2 * PAD.y + 3;
  const totalsHeight = laidOut.reduce((sum, row) => sum + row.label.length * lineHeight + 2 * PAD.y, 0) + totalHeight;

  // The breakdown table.
  const withSurcharge = view.taxes.some((group) => group.surcharge || group.surchargeRate);
  const headers = [labels.taxBase, `${labels.vat} %`, labels.vat, ...(withSurcharge ? [`${labels.surcharge} %`, labels.surcharge] : [])];
  const breakdownWidth = pen.width - TOTALS_WIDTH - 24;
  const columnWidth = breakdownWidth / headers.length;
  const headerLines = headers.map((text) => pen.wrap(text, columnWidth - 2 * PAD.x, HEAD));
  const headerHeight = Math.max(...headerLines.map((lines) => lines.length)) * pen.lineHeight(HEAD) + 2 * PAD.y;
  const groupRows = view.taxes.map((group) => [
    fmt.money(group.base),
    group.vatException ? `${fmt.percent(group.vatRate)}\n${group.vatException}` : fmt.percent(group.vatRate),
    fmt.money(group.vat),
    ...(withSurcharge ? [fmt.percent(group.surchargeRate), fmt.money(group.surcharge)] : []),
  ].map((text) => pen.wrap(text, columnWidth - 2 * PAD.x, SMALL)));
  const groupHeights = groupRows.map((cells) => Math.max(...cells.map((lines) => lines.length)) * lineHeight + 2 * PAD.y);
  const breakdownHeight = view.taxes.length > 0 ? headerHeight + groupHeights.reduce((sum, height) => sum + height, 0) : 0;

  pen.ensure(Math.max(totalsHeight, breakdownHeight));
  const top = pen.y;

  if (view.taxes.length > 0) {
    pen.box(pen.left, top, breakdownWidth, headerHeight, COLORS.fill);
    let y = top;
    for (const [index, lines] of headerLines.entries()) pen.lines(lines, pen.left + index * columnWidth + PAD.x, y + PAD.y, HEAD, { align: 'right', width: columnWidth - 2 * PAD.x });
    y += headerHeight;
    for (const [rowIndex, cells] of groupRows.entries()) {
      for (const [index, lines] of cells.entries()) pen.lines(lines, pen.left + index * columnWidth + PAD.x, y + PAD.y, SMALL, { align: 'right', width: columnWidth - 2 * PAD.x });
      y += groupHeights[rowIndex]!;
      pen.rule(pen.left, pen.left + breakdownWidth, y, COLORS.rule, 0.4);
    }
  }

  const x = pen.right - TOTALS_WIDTH;
  let y = top;
  for (const row of laidOut) {
    pen.lines(row.label, x + PAD.x, y + PAD.y, { ...SMALL, color: COLORS.muted });
    pen.text(row.value, x + PAD.x, y + PAD.y, SMALL, { align: 'right', width: inner });
    y += row.label.length * lineHeight + 2 * PAD.y;
    pen.rule(x, pen.right, y, COLORS.rule, 0.4);
  }
  y += 3;
  pen.box(x, y, TOTALS_WIDTH, totalHeight - 3, COLORS.accent);
  pen.lines(totalLabel, x + PAD.x, y + PAD.y, TOTAL);
  pen.text(totalValue, x + PAD.x, y + PAD.y, TOTAL, { align: 'right', width: inner });
  pen.y = top + Math.max(totalsHeight, breakdownHeight) + 18;
}
