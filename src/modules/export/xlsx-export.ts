import type ExcelJSLibrary from 'exceljs';
import { lazyLibrary } from '../../lazy-library.ts';

const exceljs = lazyLibrary<typeof ExcelJSLibrary>('exceljs');
import { documentTable, type Cell } from './document-table.ts';
import type { ExportView } from './export-view.ts';
import { labelsFor } from './labels/labels.ts';

function xlsxCell(cell: Cell): string | number | Date | null {
  if (cell === null || typeof cell === 'string' || typeof cell === 'number') return cell;
  return new Date(`${cell.date}T00:00:00Z`);
}

/**
 * The document as an XLSX workbook of two sheets, `document` (field, value) and `lines` (one row per
 * line under the column names), with numbers as numbers and dates as dates. Text is stored as
 * text cells, so nothing a customer typed is ever evaluated as a formula.
 */
export async function renderXlsx(view: ExportView): Promise<Buffer> {
  const table = documentTable(view);
  const workbook = new (exceljs().Workbook)();
  workbook.creator = view.company.name;
  workbook.title = `${labelsFor(view.lang).titles[view.kind]} ${view.code}`;
  const money = `#,##0.${'0'.repeat(Math.max(0, view.currency.decimals))}`;

  const head = workbook.addWorksheet('document');
  head.columns = [{ header: 'field', width: 18 }, { header: 'value', width: 40 }];
  for (const [name, value] of table.header) {
    const row = head.addRow([name, xlsxCell(value)]);
    const cell = row.getCell(2);
    if (value !== null && typeof value === 'object') cell.numFmt = 'yyyy-mm-dd';
    else if (typeof value === 'number') cell.numFmt = money;
  }

  const lines = workbook.addWorksheet('lines');
  lines.columns = table.lineColumns.map((name) => ({ header: name, width: name === 'descripcion' ? 48 : 14 }));
  for (const line of table.lines) lines.addRow(line.map(xlsxCell));
  lines.getRow(1).font = { bold: true };
  head.getRow(1).font = { bold: true };
  lines.views = [{ state: 'frozen', ySplit: 1 }];
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
