import type { Module } from '../../module.ts';
import { registerExportRoutes } from './export-routes.ts';

export type { ExportView } from './export-view.ts';
export { fiscalQr, type FiscalQr } from './fiscal-qr.ts';

/** Document export: PDF, CSV, XLSX and e-invoices (UBL, CII, Facturae) of the eight documents. */
export function exportModule(): Module {
  return { name: 'export', register: registerExportRoutes };
}
