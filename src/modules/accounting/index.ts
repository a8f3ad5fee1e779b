import type { Module } from '../../module.ts';
import { cuentaModel, subcuentaModel } from './account-models.ts';
import { asientoModel, partidaModel } from './entry-models.ts';
import { conceptoPartidaModel, cuentaEspecialModel, diarioModel, regularizacionImpuestoModel } from './journal-models.ts';

export { asientoModel, conceptoPartidaModel, cuentaEspecialModel, cuentaModel, diarioModel, partidaModel, regularizacionImpuestoModel, subcuentaModel };

/**
 * The accounting of the reference installation: journals, special-account roles, entry concepts,
 * the chart of accounts per fiscal year, entries with their lines, and VAT settlements. It keeps
 * the single-record rules and sub-account balances; it does not post documents.
 */
export function accountingModule(): Module {
  return {
    name: 'accounting',
    models: [
      diarioModel, cuentaEspecialModel, conceptoPartidaModel, cuentaModel, subcuentaModel, asientoModel, partidaModel,
      regularizacionImpuestoModel,
    ],
  };
}
