import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExportLine } from '../export-view.ts';
import type { PdfContext } from './pdf-context.ts';
import { COLORS, type TextStyle } from './pdf-pen.ts';

const CELL: TextStyle = { size: 8.5 };
const HEAD: TextStyle = { size: 7.5, bold: true, color: COLORS.onAccent };
const PAD = { x: 4, y: 3.5 } as const;
/** Room kept for the description however wide the numbers are. */
const MIN_DESCRIPTION = 150;
/** Documents of more lines than this yield between preparing the table and drawing it. */
const YIELD_AFTER = 40;

interface Column {
  header: string;
  align: 'left' | 'right';
  cell(line: ExportLine): string;
  /** Widest a column may grow to fit its values (the description takes what the others leave). */
  max: number;
  width: number;
}

/**
 * The lines' table: reference, description, quantity, unit price, discount, tax rate, amount.
 * Columns are as wide as their widest value or header word, and the description takes the rest;
 * the reference and discount columns are left out when no line has one. A line whose quantity or
 * price is hidden on paper prints blank cells (the price hides its discount, rate and amount too).
 *
 * Rows never split across pages: a row that does not fit starts a new page, whose table header is
 * drawn again. Only a row taller than a whole page (a description of pages) is split, between its
 * text lines, so that nothing is ever cut. The renderer yields to the event loop after every page
 * break, so a document of hundreds of lines never holds it for more than a page's drawing.
 */
export async function drawLineTable(ctx: PdfContext): Promise<void> {
  const { pen, view } = ctx;
  const { columns, texts } = tableColumns(ctx);
  const header = columns.map((column) => pen.wrap(column.header.toLocaleUpperCase(ctx.labels.locale), column.width - 2 * PAD.x, HEAD));
  const headerHeight = Math.max(...header.map((lines) => lines.length)) * pen.lineHeight(HEAD) + 2 * PAD.y;
  const drawHeader = () => {
    pen.box(pen.left, pen.y, pen.width, headerHeight, COLORS.accent);
    let x = pen.left;
    for (const [index, column] of columns.entries()) {
      pen.lines(header[index]!, x + PAD.x, pen.y + PAD.y, HEAD, { align: column.align, width: column.width - 2 * PAD.x });
      x += column.width;
    }
    pen.y += headerHeight;
  };

  const lineHeight = pen.lineHeight(CELL);
  // Rows are wrapped as they are drawn, so that the work is spread between the yields.
  const wrapRow = (index: number) => columns.map((column, at) => pen.wrap(texts[index]![at]!, column.width - 2 * PAD.x, CELL));
  const linesFitting = () => Math.floor((pen.bottom - pen.y - 2 * PAD.y) / lineHeight);

  // Formatting and measuring every cell was the first slice of work: let the loop breathe.
  if (view.lines.length > YIELD_AFTER) await nextTurn();
  pen.ensure(headerHeight + (view.lines.length > 0 ? rowHeight(wrapRow(0), lineHeight) : 0));
  drawHeader();
  pen.repeat = drawHeader;
  const firstPage = pen.pages;
  let page = pen.pages;
  let rowsOnPage = 0;
  const breakPage = async () => {
    pen.newPage();
    page = pen.pages;
    rowsOnPage = 0;
    await nextTurn();
  };
  for (const [index, line] of view.lines.entries()) {
    if (line.pageBreakBefore && rowsOnPage > 0) await breakPage();
    const cells = wrapRow(index);
    const tallest = Math.max(1, ...cells.map((lines) => lines.length));
    for (let from = 0; from < tallest; ) {
      let take = tallest - from;
      if (take > linesFitting()) {
        // Not on this page: a new one, unless this one holds nothing but the table's header yet.
        if (rowsOnPage > 0 || page === firstPage) await breakPage();
        // Still taller than the page: as many of its lines as fit, the rest on the next pages.
        take = Math.min(take, Math.max(1, linesFitting()));
      }
      const chunk = cells.map((lines) => lines.slice(from, from + take));
      let x = pen.left;
      for (const [at, column] of columns.entries()) {
        pen.lines(chunk[at]!, x + PAD.x, pen.y + PAD.y, CELL, { align: column.align, width: column.width - 2 * PAD.x });
        x += column.width;
      }
      pen.y += rowHeight(chunk, lineHeight);
      pen.rule(pen.left, pen.right, pen.y, COLORS.rule, 0.4);
      rowsOnPage += 1;
      from += take;
    }
  }
  pen.repeat = null;
  pen.y += 14;
}

function rowHeight(cells: string[][], lineHeight: number): number {
  return Math.max(1, ...cells.map((lines) => lines.length)) * lineHeight + 2 * PAD.y;
}

/** The columns this document prints, with their widths, and every line's cell texts. */
function tableColumns(ctx: PdfContext): { columns: Column[]; texts: string[][] } {
  const { labels, fmt, view, pen } = ctx;
  const priced = (line: ExportLine, text: () => string) => (line.showPrice ? text() : '');
  const decimals = view.currency.decimals;
  // A unit price with more decimals than the currency (0.125 €) is printed with them all.
  const price = (value: number) => (Number(value.toFixed(decimals)) === value ? fmt.amount(value) : fmt.number(value, 6));
  const discount = (line: ExportLine) => {
    if (!line.discount2) return line.discount ? fmt.percent(line.discount) : '';
    return `${fmt.number(line.discount, 4)} + ${fmt.number(line.discount2, 4)} %`;
  };
  const rate = (line: ExportLine) => {
    if (line.supplied) return '';
    return line.surchargeRate ? `${fmt.percent(line.vatRate)}\n+ ${fmt.percent(line.surchargeRate)}` : fmt.percent(line.vatRate);
  };
  const all: Array<Omit<Column, 'width'> & { show: boolean }> = [
    { header: labels.reference, align: 'left', max: 80, cell: (line) => line.reference ?? '', show: view.lines.some((line) => line.reference?.trim()) },
    { header: labels.description, align: 'left', max: Infinity, cell: (line) => line.description, show: true },
    { header: labels.quantity, align: 'right', max: 70, cell: (line) => (line.showQuantity ? fmt.number(line.quantity) : ''), show: true },
    { header: labels.unitPrice, align: 'right', max: 80, cell: (line) => priced(line, () => price(line.unitPrice)), show: true },
    { header: labels.discount, align: 'right', max: 70, cell: (line) => priced(line, () => discount(line)), show: view.lines.some((line) => line.showPrice && (line.discount || line.discount2)) },
    { header: labels.tax, align: 'right', max: 60, cell: (line) => priced(line, () => rate(line)), show: true },
    { header: labels.amount, align: 'right', max: 90, cell: (line) => priced(line, () => fmt.amount(line.netAmount)), show: true },
  ];
  const shown = all.filter((column) => column.show);
  // Every cell's text, formatted once: measured here, wrapped and drawn later.
  const texts = view.lines.map((line) => shown.map((column) => column.cell(line)));
  const columns: Column[] = shown.map((column, index) => {
    if (column.max === Infinity) return { ...column, width: 0 };
    // Numbers never wrap (whole values are measured); headers and references may wrap between words.
    const parts = new Set<string>();
    for (const row of texts) for (const part of row[index]!.split(column.align === 'right' ? '\n' : /[\n ]+/)) parts.add(part);
    let width = 0;
    for (const part of column.header.toLocaleUpperCase(labels.locale).split(' ')) width = Math.max(width, pen.measure(part, HEAD));
    const doc = pen.use(CELL);
    for (const part of parts) width = Math.max(width, doc.widthOfString(part));
    return { ...column, width: Math.min(column.max, width + 2 * PAD.x + 1) };
  });
  const description = columns.find((column) => column.width === 0)!;
  const rest = columns.reduce((sum, column) => sum + column.width, 0);
  description.width = Math.max(MIN_DESCRIPTION, pen.width - rest);
  // Extremely wide numbers: shrink the others proportionally so that the row still fits the page.
  const total = rest + description.width;
  if (total > pen.width) for (const column of columns) if (column !== description) column.width *= (pen.width - description.width) / rest;
  return { columns, texts };
}
