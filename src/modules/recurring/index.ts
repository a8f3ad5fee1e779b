import type { Module } from '../../module.ts';
import { validationError } from '../../errors.ts';
import { productsForLines } from '../catalogue/index.ts';
import { billDue } from './bill-due.ts';
import { recordBilledPeriods } from './billing-part.ts';
import { recurringInvoiceModel, recurringLineModel, recurringPeriodModel } from './recurring-models.ts';
import { registerRecurringRoutes } from './recurring-routes.ts';

export { recurringInvoiceIssued, type IssuedInvoice } from './recurring-hooks.ts';
export { recurringInvoiceModel, recurringLineModel, recurringPeriodModel };

/**
 * Recurring invoices (docs/recurring.md): templates with lines and a schedule, billed by a job
 * through the documents' `createDocument`, each period once (its row is written in the invoice's
 * own commit, through `documentPreparing`); a preview, billing on demand, skipping and resuming.
 */
export function recurringModule(): Module {
  return {
    name: 'recurring',
    models: [recurringInvoiceModel, recurringLineModel, recurringPeriodModel],
    setup(ctx) {
      recordBilledPeriods(ctx);
      // A line names a product that exists (a product removed later is the billing's refusal, kept on the template).
      ctx.store.watch([recurringLineModel.resource], async (db, _model, change) => {
        const referencia = change && change.action !== 'delete' ? change.record.referencia : undefined;
        if (typeof referencia === 'string' && referencia !== '' && !(await productsForLines(db, [referencia])).has(referencia)) throw validationError({ referencia: 'not-found' });
      });
    },
    register: registerRecurringRoutes,
    jobs: [{ name: 'recurring-invoices', intervalMs: () => 15 * 60_000, run: (ctx) => billDue(ctx) }],
  };
}
