import type { Module } from '../../module.ts';
import { declareFinanceReference } from './finance-reference.ts';
import { divisaModel, cuentaBancoModel, formaPagoModel } from './finance-models.ts';

export { divisaModel, cuentaBancoModel, formaPagoModel };

/** Currencies, bank accounts and payment methods. */
export function financeModule(): Module {
  return { name: 'finance', models: [divisaModel, cuentaBancoModel, formaPagoModel], setup: declareFinanceReference };
}
export { conversionRateOf, paymentMethodExists, paymentTermsOf, type PaymentTerms } from './finance-reads.ts';
export { financeReference, loadFinanceReference, rateFor, type FinanceReference } from './finance-reference.ts';
