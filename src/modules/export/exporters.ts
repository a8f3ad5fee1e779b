import { renderCsv } from './csv-export.ts';
import { renderCii } from './einvoice/cii-invoice.ts';
import { renderFacturae } from './einvoice/facturae-invoice.ts';
import { renderUbl } from './einvoice/ubl-invoice.ts';
import type { ExportView } from './export-view.ts';
import { renderPdf } from './pdf/render-pdf.ts';
import { renderXlsx } from './xlsx-export.ts';
import pLimit from 'p-limit';

/** One export type: how it is answered and drawn. */
export interface Exporter {
  contentType: string;
  extension: string;
  /** `inline` shows in the browser (PDF, as the reference); `attachment` downloads. */
  disposition: 'inline' | 'attachment';
  /** E-invoices exist for invoices only. */
  invoicesOnly: boolean;
  render(view: ExportView): Buffer | string | Promise<Buffer | string>;
}

const XML = 'application/xml; charset=utf-8';

/**
 * PDFs and spreadsheets are built whole in memory (a few MiB each while drawn) and are CPU-bound:
 * drawing more at once than the process has cores only adds memory. Renders beyond this wait
 * their turn, so 50 concurrent PDF requests keep the process's peak memory flat
 * (docs/benchmarks.md) at the same throughput.
 */
const heavyRenders = pLimit(2);
const limited = (render: (view: ExportView) => Promise<Buffer>) => (view: ExportView) => heavyRenders(() => render(view));

/** The export types by their `type` parameter (upper case); `XLS` is the reference's name of XLSX. */
export const EXPORTERS: Readonly<Record<string, Exporter>> = {
  PDF: { contentType: 'application/pdf', extension: 'pdf', disposition: 'inline', invoicesOnly: false, render: limited(renderPdf) },
  CSV: { contentType: 'text/csv; charset=utf-8', extension: 'csv', disposition: 'attachment', invoicesOnly: false, render: renderCsv },
  XLSX: {
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx', disposition: 'attachment', invoicesOnly: false, render: limited(renderXlsx),
  },
  UBL: { contentType: XML, extension: 'xml', disposition: 'attachment', invoicesOnly: true, render: renderUbl },
  CII: { contentType: XML, extension: 'xml', disposition: 'attachment', invoicesOnly: true, render: renderCii },
  FACTURAE: { contentType: XML, extension: 'xml', disposition: 'attachment', invoicesOnly: true, render: renderFacturae },
};

export const TYPE_ALIASES: Readonly<Record<string, string>> = { XLS: 'XLSX' };

export const EXPORT_TYPES = Object.keys(EXPORTERS);
