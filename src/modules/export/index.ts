import type { Module } from '../../module.ts';
import { registerExportLinkRoute } from './export-links.ts';
import { registerExportRoutes } from './export-routes.ts';
import { registerTrialBalanceExport } from './trial-balance-export.ts';

export type { ExportView } from './export-view.ts';
export { fiscalQr, type FiscalQr } from './fiscal-qr.ts';
export { einvoiceFinishing, finishedFile, type EinvoiceFinishing } from './einvoice-finishing.ts';
export { documentTitleOf, documentView, exportTypeOf, renderDocumentFile, type DocumentFile } from './document-file.ts';
export { chooseLanguage, languageOf } from './labels/labels.ts';
export { reportCsv, reportXlsx, type ReportTable } from './table-export.ts';
export { reportPdf } from './pdf/report-pdf.ts';
export { exportLinkOf } from './export-links.ts';

/**
 * Document export: PDF, CSV, XLSX and e-invoices (UBL, CII, Facturae) of the eight documents; the
 * trial balance as CSV or XLSX; signed links to a document's export (export-links.ts).
 */
export function exportModule(): Module {
  return {
    name: 'export',
    register(app, ctx) {
      registerExportRoutes(app, ctx);
      registerExportLinkRoute(app, ctx);
      registerTrialBalanceExport(app, ctx);
    },
  };
}
