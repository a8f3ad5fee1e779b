import type { ExportView } from './export-view.ts';

/** A cell of a tabular export: text, a number (written as a number), a date (`YYYY-MM-DD`), or empty. */
export type Cell = string | number | { date: string } | null;

/** A document as tables: its header fields as name/value pairs, then its lines under column names. */
export interface DocumentTable {
  header: Array<[string, Cell]>;
  lineColumns: string[];
  lines: Cell[][];
}

const date = (value: string | null): Cell => (value ? { date: value } : null);

/**
 * The spreadsheet and CSV shape of a document, under the reference's column names (`codigo`,
 * `fecha`, `cifnif`, `pvpunitario` ...) so that a program reading the file finds the fields it knows
 * from the API. Amounts are numbers, never formatted text.
 */
export function documentTable(view: ExportView): DocumentTable {
  const subjectCode = view.side === 'sales' ? 'codcliente' : 'codproveedor';
  const header: Array<[string, Cell]> = [
    ['tipodoc', view.type],
    ['codigo', view.code],
    ['numero', view.number],
    ['codserie', view.series],
    ['fecha', date(view.date)],
    ['hora', view.time],
    ...(view.kind === 'invoice' ? ([['vencimiento', date(view.dueDate)], ['codigorect', view.rectifies?.code ?? null]] as Array<[string, Cell]>) : []),
    [subjectCode, view.subject.code],
    [view.side === 'sales' ? 'nombrecliente' : 'nombre', view.subject.name],
    ['cifnif', view.subject.taxId],
    ['direccion', view.subject.address.street],
    ['codpostal', view.subject.address.postcode],
    ['ciudad', view.subject.address.city],
    ['provincia', view.subject.address.province],
    ['codpais', view.subject.address.country],
    ['coddivisa', view.currency.code],
    ['codpago', view.paymentMethod?.code ?? null],
    ['dtopor1', view.totals.globalDiscount],
    ['dtopor2', view.totals.globalDiscount2],
    ['neto', view.totals.net],
    ['totaliva', view.totals.vat],
    ['totalrecargo', view.totals.surcharge],
    ['irpf', view.totals.irpfRate],
    ['totalirpf', view.totals.irpf],
    ['totalsuplidos', view.totals.supplied],
    ['total', view.totals.total],
    ['observaciones', view.observations],
  ];
  const lineColumns = ['referencia', 'descripcion', 'cantidad', 'pvpunitario', 'dtopor', 'dtopor2', 'codimpuesto', 'iva', 'recargo', 'irpf', 'suplido', 'pvptotal'];
  const lines: Cell[][] = view.lines.map((line) => [
    line.reference, line.description, line.quantity, line.unitPrice, line.discount, line.discount2, line.taxCode, line.vatRate, line.surchargeRate,
    line.irpfRate, line.supplied ? 1 : 0, line.netAmount,
  ]);
  return { header, lineColumns, lines };
}
