import type { Module } from '../../module.ts';
import { registerSpreadsheetRoutes } from './spreadsheet-routes.ts';

export { importFacturaScripts, type ImportOptions } from './import-facturascripts.ts';
export { renderReport, type ImportReport } from './import-report.ts';
export { ImportRefused } from './copy-tables.ts';
export type { TableProgress } from './copy-tables.ts';

/**
 * Bringing books from elsewhere (docs/migration.md): a whole installation of the established
 * system, from its database (`npm run cli -- import facturascripts`); customers, suppliers,
 * products and contacts from spreadsheets (`POST /api/3/importar/{resource}`).
 */
export function migrationModule(): Module {
  return { name: 'migration', register: registerSpreadsheetRoutes };
}
