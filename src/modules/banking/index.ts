import type { Module } from '../../module.ts';
import { registerBankingRoutes } from './banking-routes.ts';
import { remittanceWriter } from './build-remittance.ts';
import { remittanceModel, remittanceReceiptModel } from './remittance-models.ts';

export { remittanceModel, remittanceReceiptModel };

/**
 * Banking (docs/banking.md): SEPA direct-debit remittances of customer receipts and their pain.008
 * files. Transfers, statements and matching come next (issue 39).
 */
export function bankingModule(): Module {
  return {
    name: 'banking',
    models: [remittanceModel, remittanceReceiptModel],
    setup(ctx) {
      ctx.writers.set(remittanceModel, remittanceWriter(ctx));
    },
    register: registerBankingRoutes,
  };
}
