import type { Module } from '../module.ts';
import { accountingModule } from './accounting/index.ts';
import { authModule } from './auth/index.ts';
import { bankingModule } from './banking/index.ts';
import { taxFormsModule } from './taxforms/index.ts';
import { mcpModule } from './mcp/index.ts';
import { migrationModule } from './migration/index.ts';
import { batchModule } from './batch/index.ts';
import { catalogueModule } from './catalogue/index.ts';
import { companyModule } from './company/index.ts';
import { contactsModule } from './contacts/index.ts';
import { customersModule } from './customers/index.ts';
import { documentsModule } from './documents/index.ts';
import { eventsModule } from './events/index.ts';
import { exportModule } from './export/index.ts';
import { openapiModule } from './openapi/index.ts';
import { filesModule } from './files/index.ts';
import { financeModule } from './finance/index.ts';
import { fiscalModule } from './fiscal/index.ts';
import { geographyModule } from './geography/index.ts';
import { installationModule } from './installation/index.ts';
import { logsModule } from './logs/index.ts';
import { mailModule } from './mail/index.ts';
import { recurringModule } from './recurring/index.ts';
import { paymentsModule } from './payments/index.ts';
import { postingModule } from './posting/index.ts';
import { settingsModule } from './settings/index.ts';
import { systemModule } from './system/index.ts';
import { taxesModule } from './taxes/index.ts';
import { usersModule } from './users/index.ts';
import { verifactuModule } from './verifactu/index.ts';
import { ticketbaiModule } from './ticketbai/index.ts';
import { faceModule } from './face/index.ts';

/**
 * The modules of the core installation, in dependency order: a module comes after the modules it
 * imports (docs/architecture.md draws them). Seeds and setups run in this order.
 */
export function coreModules(): Module[] {
  return [
    settingsModule(), usersModule(), authModule(), geographyModule(), companyModule(), fiscalModule(), taxesModule(),
    financeModule(), accountingModule(), contactsModule(), customersModule(), catalogueModule(), paymentsModule(), documentsModule(),
    postingModule(), filesModule(), exportModule(), verifactuModule(), ticketbaiModule(), faceModule(), recurringModule(), mailModule(), bankingModule(), taxFormsModule(), mcpModule(), batchModule(), migrationModule(), logsModule(), eventsModule(), systemModule(), installationModule(), openapiModule(),
  ];
}

/** The core modules but those named (tests: `withoutModules('installation')` for an empty installation). */
export function withoutModules(...names: string[]): Module[] {
  return coreModules().filter((module) => !names.includes(module.name));
}
