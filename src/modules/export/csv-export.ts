import { stringify } from 'csv-stringify/sync';
import { documentTable, type Cell } from './document-table.ts';
import type { ExportView } from './export-view.ts';

/**
 * Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading
 * apostrophe: a customer's name must never become a formula on the accountant's machine (CSV
 * injection). Numbers are written as numbers and never touched.
 */
export function safeText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvCell(cell: Cell): string | number {
  if (cell === null) return '';
  if (typeof cell === 'number') return cell;
  if (typeof cell === 'object') return cell.date;
  return safeText(cell);
}

/**
 * The document as CSV (RFC 4180, `;` between fields as the reference writes them, `.` decimals,
 * UTF-8 with a byte-order mark so that spreadsheet programs detect the encoding): a row of header
 * field names and a row of their values, an empty row, then the line columns and one row per line.
 */
export function renderCsv(view: ExportView): Buffer {
  const table = documentTable(view);
  const rows: Array<Array<string | number>> = [
    table.header.map(([name]) => name),
    table.header.map(([, value]) => csvCell(value)),
    [],
    table.lineColumns,
    ...table.lines.map((line) => line.map(csvCell)),
  ];
  return Buffer.from(`\uFEFF${stringify(rows, { delimiter: ';', record_delimiter: 'windows', cast: { number: (value) => String(value) } })}`, 'utf8');
}
