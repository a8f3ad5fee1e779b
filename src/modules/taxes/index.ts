import type { Module } from '../../module.ts';
import { declareTaxReference } from './tax-reference.ts';
import { impuestoModel, impuestoZonaModel, retencionModel, identificadorFiscalModel } from './tax-models.ts';

export { impuestoModel, impuestoZonaModel, retencionModel, identificadorFiscalModel };

/** Taxes, tax zones, retentions and tax id types. */
export function taxesModule(): Module {
  return { name: 'taxes', models: [impuestoModel, impuestoZonaModel, retencionModel, identificadorFiscalModel], setup: declareTaxReference };
}
export { loadTaxReference, taxReference, type TaxRate, type TaxReference, type TaxZoneRule } from './tax-reference.ts';
