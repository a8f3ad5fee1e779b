import type { Module } from '../../module.ts';
import { taxRowsFilledModel } from './fill-tax-rows.ts';
export { recordTaxRowsComplete, writeMissingTaxRows } from './fill-tax-rows.ts';
import { keepTaxRows } from './keep-taxes.ts';
import { lockSettledPeriods } from './period-lock.ts';
import { vatSettlementModel } from './settlement-model.ts';
import { invoiceTaxModel } from './tax-line-model.ts';
import { registerTaxFormRoutes } from './taxforms-routes.ts';

export { invoiceTaxModel, taxRowsFilledModel, vatSettlementModel };

/**
 * Tax forms from the books (docs/tax-forms.md): each invoice's VAT kept by tax group as it is
 * written, the VAT return (Modelo 303) summed from it in SQL, and its settlement, which carries
 * the result forward and locks the period.
 */
export function taxFormsModule(): Module {
  return {
    name: 'taxforms',
    models: [invoiceTaxModel, vatSettlementModel, taxRowsFilledModel],
    setup(ctx) {
      keepTaxRows(ctx);
      lockSettledPeriods(ctx);
    },
    register: registerTaxFormRoutes,
  };
}
