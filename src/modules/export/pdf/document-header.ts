import type { ExportParty } from '../export-view.ts';
import type { PdfContext } from './pdf-context.ts';
import { COLORS, type TextStyle } from './pdf-pen.ts';
import { usableLogo } from './logo-image.ts';
import { drawFiscalQr } from './fiscal-qr-block.ts';

const SMALL: TextStyle = { size: 8.5 };
const MUTED: TextStyle = { size: 8.5, color: COLORS.muted };
const CAPTION: TextStyle = { size: 7.5, bold: true, color: COLORS.accent };
/** The largest logo box, in points; a smaller image keeps its natural size (never blown up). */
const LOGO = { width: 150, height: 56 } as const;

/** An address as printed: street, `postcode city (province)`, and the country when asked for. */
export function addressLines(party: ExportParty, withCountry: boolean): string[] {
  const { street, postcode, city, province, countryName } = party.address;
  const place = [postcode, city].filter(Boolean).join(' ');
  const lines = [street, province && province !== city ? (place ? `${place} (${province})` : province) : place];
  if (withCountry && countryName) lines.push(countryName);
  return lines.filter((part) => part.trim() !== '');
}

/**
 * The first page's head: the company (logo, name, tax id, address, contacts) at the left, the
 * fiscal QR (if any), title and code at the right; below, the customer's or supplier's box and the document's data
 * (date, due date, order numbers, the rectified invoice). Leaves `pen.y` below it.
 */
export function drawDocumentHeader(ctx: PdfContext): void {
  const { pen, view, labels, fmt } = ctx;
  const gap = 16;
  const rightWidth = 200;
  const leftWidth = pen.width - rightWidth - gap;
  const rightX = pen.right - rightWidth;
  // Countries are printed only when the parties are in different ones (an export, an EU sale).
  const foreign = (view.company.address.country ?? '') !== (view.subject.address.country ?? '');

  // Company, top left.
  let y: number = pen.top;
  const logo = usableLogo(view.logo);
  if (logo) {
    try {
      // `openImage` parses without drawing (pdfkit's typings omit it): the size is needed first.
      const image = (pen.doc as unknown as { openImage(src: Buffer): { width: number; height: number } }).openImage(logo);
      const scale = Math.min(1, LOGO.width / image.width, LOGO.height / image.height);
      pen.doc.image(image as unknown as Buffer, pen.left, y, { width: image.width * scale, height: image.height * scale });
      y += image.height * scale + 10;
    } catch {
      // Bytes pdfkit cannot read: the document goes out without the logo rather than not at all.
    }
  }
  const company = view.company;
  y = pen.lines(pen.wrap(company.name, leftWidth, { size: 13, bold: true }), pen.left, y, { size: 13, bold: true }) + 2;
  if (company.legalName && company.legalName !== company.name) y = pen.lines(pen.wrap(company.legalName, leftWidth, SMALL), pen.left, y, SMALL);
  if (company.taxId) y = pen.lines([`${labels.taxId}: ${company.taxId}`], pen.left, y, SMALL);
  y = pen.lines(addressLines(company, foreign).flatMap((line) => pen.wrap(line, leftWidth, SMALL)), pen.left, y, SMALL);
  const contacts = [company.phone, company.email, company.web].filter((part) => part.trim() !== '').join('   ·   ');
  if (contacts) y = pen.lines(pen.wrap(contacts, leftWidth, MUTED), pen.left, y, MUTED);
  const companyBottom = y;

  // Top right: the fiscal QR first when the invoice has one (the AEAT wants it at the top), then title and code.
  const titleTop = view.fiscalQr && view.fiscalQr.placement !== 'end' ? drawFiscalQr(pen, view.fiscalQr, pen.right, pen.top) + 4 : pen.top - 2;
  const titleStyle: TextStyle = { size: 20, bold: true, color: COLORS.accent };
  y = pen.lines(pen.wrap(ctx.title, rightWidth, titleStyle), rightX, titleTop, titleStyle, { align: 'right', width: rightWidth });
  const codeStyle: TextStyle = { size: 11, bold: true };
  y = pen.lines(pen.wrap(view.code, rightWidth, codeStyle), rightX, y + 1, codeStyle, { align: 'right', width: rightWidth });

  // Second band: the other party's box at the left, the document's data at the right.
  const bandTop = Math.max(companyBottom, y) + 14;
  const pad = 9;
  const party = view.subject;
  const partyInner = leftWidth - 2 * pad;
  const name: TextStyle = { size: 10, bold: true };
  const partyRows: Array<{ lines: string[]; style: TextStyle }> = [
    { lines: [(view.side === 'sales' ? labels.customer : labels.supplier).toLocaleUpperCase(labels.locale)], style: CAPTION },
    { lines: pen.wrap(party.name || party.legalName, partyInner, name), style: name },
  ];
  if (party.name && party.legalName && party.legalName !== party.name) partyRows.push({ lines: pen.wrap(party.legalName, partyInner, SMALL), style: SMALL });
  if (party.taxId) partyRows.push({ lines: [`${labels.taxId}: ${party.taxId}`], style: SMALL });
  partyRows.push({ lines: addressLines(party, foreign).flatMap((line) => pen.wrap(line, partyInner, SMALL)), style: SMALL });

  const details: Array<[string, string]> = [[labels.number, view.code], [labels.date, fmt.date(view.date)]];
  if (view.kind === 'invoice' && view.dueDate) details.push([labels.dueDate, fmt.date(view.dueDate)]);
  if (view.taxPointDate && view.taxPointDate !== view.date) details.push([labels.taxPointDate, fmt.date(view.taxPointDate)]);
  if (view.externalNumber) details.push([view.side === 'sales' ? labels.customerOrder : labels.supplierNumber, view.externalNumber]);
  if (view.rectifies) details.push([labels.rectifies, `${view.rectifies.code} (${fmt.date(view.rectifies.date)})`]);
  const detailRows = details.map(([label, value]) => layoutPair(ctx, label, value, rightWidth - 2 * pad));

  const partyHeight = partyRows.reduce((sum, row) => sum + row.lines.length * pen.lineHeight(row.style), 0) + 2;
  const detailHeight = detailRows.reduce((sum, row) => sum + row.height, 0);
  const bandHeight = Math.max(partyHeight, detailHeight) + 2 * pad;
  pen.box(pen.left, bandTop, leftWidth, bandHeight, COLORS.fill);
  pen.box(rightX, bandTop, rightWidth, bandHeight, null, COLORS.rule);

  y = bandTop + pad;
  for (const [index, row] of partyRows.entries()) y = pen.lines(row.lines, pen.left + pad, y, row.style) + (index === 0 ? 2 : 0);
  y = bandTop + pad;
  for (const row of detailRows) {
    pen.text(row.label, rightX + pad, y, MUTED);
    pen.lines(row.value, rightX + pad + row.valueX, y, SMALL, { align: 'right', width: rightWidth - 2 * pad - row.valueX });
    y += row.height;
  }
  pen.y = bandTop + bandHeight + 18;
}

/** A label and its value on one line when both fit, else the value wrapped in what the label leaves. */
function layoutPair(ctx: PdfContext, label: string, value: string, width: number): { label: string; value: string[]; valueX: number; height: number } {
  const { pen } = ctx;
  const valueX = Math.min(width * 0.55, pen.measure(label, MUTED) + 8);
  const lines = pen.wrap(value, width - valueX, SMALL);
  return { label, value: lines, valueX, height: lines.length * pen.lineHeight(SMALL) + 2 };
}

/** Pages after the first start with the company's name and the document's title and code. */
export function drawContinuationHeader(ctx: PdfContext): void {
  const { pen, view } = ctx;
  const style: TextStyle = { size: 9, bold: true };
  const accent: TextStyle = { ...style, color: COLORS.accent };
  const half = pen.width / 2 - 6;
  const left = pen.lines(pen.wrap(view.company.name, half, style), pen.left, pen.top, style);
  const right = pen.lines(pen.wrap(`${ctx.title} ${view.code}`, half, accent), pen.right - half, pen.top, accent, { align: 'right', width: half });
  const below = Math.max(left, right) + 3;
  pen.rule(pen.left, pen.right, below);
  pen.y = below + 10;
}
