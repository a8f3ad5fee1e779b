import type { Module } from '../../module.ts';
import { keepTaxRows } from './keep-taxes.ts';
import { invoiceTaxModel } from './tax-line-model.ts';
import { registerTaxFormRoutes } from './taxforms-routes.ts';

export { invoiceTaxModel };

/**
 * Tax forms from the books (docs/tax-forms.md): each invoice's VAT kept by tax group as it is
 * written, and the VAT return (Modelo 303) summed from it in SQL.
 */
export function taxFormsModule(): Module {
  return {
    name: 'taxforms',
    models: [invoiceTaxModel],
    setup: keepTaxRows,
    register: registerTaxFormRoutes,
  };
}
