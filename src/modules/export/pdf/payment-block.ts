import type { PdfContext } from './pdf-context.ts';
import { COLORS, type TextStyle } from './pdf-pen.ts';

const SMALL: TextStyle = { size: 8.5 };
const MUTED: TextStyle = { size: 8.5, color: COLORS.muted };
const CAPTION: TextStyle = { size: 7.5, bold: true, color: COLORS.accent };
const HEAD: TextStyle = { size: 7.5, bold: true, color: COLORS.muted };
const PAD = { x: 5, y: 3 } as const;

/** An IBAN in groups of four, as it is printed on paper. */
export function formatIban(iban: string): string {
  return iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * The customer's own account of a direct debit, masked but for its country, check digits and last
 * four: enough to recognise it, nothing to reuse from a forwarded PDF.
 */
export function maskIban(iban: string): string {
  const plain = iban.replace(/\s+/g, '');
  if (plain.length <= 8) return formatIban(plain);
  return formatIban(plain.slice(0, 4) + '*'.repeat(plain.length - 8) + plain.slice(-4));
}

/**
 * How to pay: the payment method with the account to pay into (or, for a direct debit, the
 * account charged and the mandate) at the left, and for an invoice its receipts (number, due
 * date, amount, paid on / pending) at the right. Moves to a new page whole when it does not fit.
 */
export function drawPayment(ctx: PdfContext): void {
  const { pen, view, labels, fmt } = ctx;
  const method = view.paymentMethod;
  const receipts = view.kind === 'invoice' ? view.receipts : [];
  if (!method && receipts.length === 0) return;
  const gap = 24;
  const leftWidth = receipts.length > 0 ? (pen.width - gap) * 0.45 : pen.width;
  const rightX = pen.left + leftWidth + gap;
  const rightWidth = pen.right - rightX;
  const lineHeight = pen.lineHeight(SMALL);

  const methodLines: Array<{ text: string; style: TextStyle }> = [];
  if (method) {
    methodLines.push({ text: labels.paymentMethod.toLocaleUpperCase(labels.locale), style: CAPTION });
    for (const text of pen.wrap(method.description, leftWidth, { ...SMALL, bold: true })) methodLines.push({ text, style: { ...SMALL, bold: true } });
    const details: string[] = [];
    if (method.directDebit && method.debitIban) {
      details.push(`${labels.iban}: ${maskIban(method.debitIban)}`);
      if (method.mandate) details.push(`${labels.mandate}: ${method.mandate}`);
    } else if (method.iban) {
      details.push(`${labels.iban}: ${formatIban(method.iban)}`);
      if (method.swift) details.push(`${labels.bic}: ${method.swift}`);
    }
    for (const detail of details) for (const text of pen.wrap(detail, leftWidth, SMALL)) methodLines.push({ text, style: SMALL });
  }
  const methodHeight = methodLines.reduce((sum, line) => sum + pen.lineHeight(line.style), 0);

  // Receipts: number, due date, amount, state; each column as wide as its widest header word or
  // value, the state taking what is left.
  const headerTexts = [labels.receipt, labels.dueDate, labels.amount, ''];
  const texts = receipts.map((receipt) => [
    String(receipt.number),
    fmt.date(receipt.dueDate),
    fmt.money(receipt.amount),
    receipt.paid ? [labels.paid, receipt.paymentDate ? fmt.date(receipt.paymentDate) : ''].filter(Boolean).join(' ') : labels.pending,
  ]);
  const natural = headerTexts.map((header, index) => {
    const words = header.split(/\s+/).map((word) => pen.measure(word, HEAD));
    return Math.max(0, ...words, ...texts.map((row) => pen.measure(row[index]!, SMALL))) + 2 * PAD.x + 1;
  });
  natural[3] = Math.max(natural[3]!, rightWidth - natural[0]! - natural[1]! - natural[2]!);
  const naturalSum = natural.reduce((sum, width) => sum + width, 0);
  const widths = natural.map((width) => (width * rightWidth) / naturalSum);
  const headers = headerTexts.map((text, index) => pen.wrap(text, widths[index]! - 2 * PAD.x, HEAD));
  const headerHeight = Math.max(...headers.map((lines) => lines.length)) * pen.lineHeight(HEAD) + 2 * PAD.y;
  const rows = texts.map((row) => row.map((text, index) => pen.wrap(text, widths[index]! - 2 * PAD.x, SMALL)));
  const rowHeights = rows.map((cells) => Math.max(...cells.map((lines) => lines.length)) * lineHeight + 2 * PAD.y);
  const receiptsHeight = receipts.length > 0 ? pen.lineHeight(CAPTION) + headerHeight + rowHeights.reduce((sum, height) => sum + height, 0) : 0;

  // A long list of receipts would not fit beside the method on one page: it may then flow.
  const height = Math.max(methodHeight, Math.min(receiptsHeight, 160));
  pen.ensure(height);
  const top = pen.y;
  const page = pen.pages;
  let y = top;
  for (const line of methodLines) {
    pen.text(line.text, pen.left, y, line.style);
    y += pen.lineHeight(line.style);
  }
  let bottom = y;

  if (receipts.length > 0) {
    y = top;
    pen.text(labels.receipts.toLocaleUpperCase(labels.locale), rightX, y, CAPTION);
    y += pen.lineHeight(CAPTION);
    const drawHeader = () => {
      pen.box(rightX, y, rightWidth, headerHeight, COLORS.fill);
      let x = rightX;
      for (const [index, lines] of headers.entries()) {
        pen.lines(lines, x + PAD.x, y + PAD.y, HEAD, { align: index === 2 ? 'right' : 'left', width: widths[index]! - 2 * PAD.x });
        x += widths[index]!;
      }
      y += headerHeight;
    };
    drawHeader();
    for (const [rowIndex, cells] of rows.entries()) {
      if (y + rowHeights[rowIndex]! > pen.bottom) {
        pen.newPage();
        y = pen.y;
        drawHeader();
      }
      let x = rightX;
      for (const [index, lines] of cells.entries()) {
        const style = index === 3 ? (receipts[rowIndex]!.paid ? SMALL : MUTED) : SMALL;
        pen.lines(lines, x + PAD.x, y + PAD.y, style, { align: index === 2 ? 'right' : 'left', width: widths[index]! - 2 * PAD.x });
        x += widths[index]!;
      }
      y += rowHeights[rowIndex]!;
      pen.rule(rightX, pen.right, y, COLORS.rule, 0.4);
    }
    // Receipts that flowed onto further pages end below everything else.
    bottom = pen.pages !== page ? y : Math.max(bottom, y);
  }
  pen.y = bottom + 16;
}
