import type ExcelJSLibrary from 'exceljs';
import { stringify } from 'csv-stringify/sync';
import { lazyLibrary } from '../../lazy-library.ts';
import { safeText } from './csv-export.ts';

const exceljs = lazyLibrary<typeof ExcelJSLibrary>('exceljs');

/** A report as a table: named columns and rows of text or numbers (numbers stay numbers). */
export interface ReportTable {
  title: string;
  columns: string[];
  rows: Array<Array<string | number>>;
  /** Decimals of the money columns' display format in a workbook. */
  decimals: number;
}

/** The table as CSV: `;` between fields, `.` decimals, UTF-8 with a byte-order mark, text that a spreadsheet would run made inert. */
export function reportCsv(table: ReportTable): Buffer {
  const rows = [table.columns, ...table.rows.map((row) => row.map((cell) => (typeof cell === 'number' ? cell : safeText(cell))))];
  return Buffer.from(`\uFEFF${stringify(rows, { delimiter: ';', record_delimiter: 'windows', cast: { number: (value) => String(value) } })}`, 'utf8');
}

/** The table as a one-sheet XLSX workbook: a bold, frozen header row, numbers as numbers, text as text cells. */
export async function reportXlsx(table: ReportTable): Promise<Buffer> {
  const workbook = new (exceljs().Workbook)();
  workbook.title = table.title;
  const sheet = workbook.addWorksheet(table.title.slice(0, 31));
  sheet.columns = table.columns.map((header) => ({ header, width: header === 'descripcion' ? 48 : 16 }));
  const money = `#,##0.${'0'.repeat(Math.max(0, table.decimals))}`;
  for (const row of table.rows) {
    const added = sheet.addRow(row);
    row.forEach((cell, index) => {
      if (typeof cell === 'number') added.getCell(index + 1).numFmt = money;
    });
  }
  sheet.getRow(1).font = { bold: true };
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
