import type { Module } from '../../module.ts';
import { registerBankingRoutes } from './banking-routes.ts';
import { buildRemittance } from './build-remittance.ts';
import { buildTransfer } from './build-transfer.ts';
import { remittanceModel, remittanceReceiptModel } from './remittance-models.ts';
import { batchWriter } from './sepa-batch.ts';
import { bankMovementModel } from './statement-models.ts';
import { transferModel, transferPaymentModel } from './transfer-models.ts';

export { bankMovementModel, remittanceModel, remittanceReceiptModel, transferModel, transferPaymentModel };

/**
 * Banking (docs/banking.md): SEPA direct-debit remittances of customer receipts (pain.008), their
 * collection and returns; SEPA transfer orders paying supplier receipts (pain.001); bank statements
 * and their matching to receipts.
 */
export function bankingModule(): Module {
  return {
    name: 'banking',
    models: [remittanceModel, remittanceReceiptModel, transferModel, transferPaymentModel, bankMovementModel],
    setup(ctx) {
      ctx.writers.set(remittanceModel, batchWriter(ctx, remittanceModel, (body, source) => buildRemittance(ctx, body, source), 'cobrada', 'cobrarRemesa'));
      ctx.writers.set(transferModel, batchWriter(ctx, transferModel, (body, source) => buildTransfer(ctx, body, source), 'pagada', 'pagarTransferenciaSepa'));
    },
    register: registerBankingRoutes,
  };
}
