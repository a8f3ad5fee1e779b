import type { Module } from '../../module.ts';
import { declareCompanyReference } from './company-reference.ts';
import { empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel } from './company-models.ts';
import { formatoDocumentoModel } from './document-format-model.ts';

export { empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel, formatoDocumentoModel };

/** Companies, warehouses, document sequences, document statuses and print formats. */
export function companyModule(): Module {
  return {
    name: 'company',
    models: [empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel, formatoDocumentoModel],
    setup: declareCompanyReference,
  };
}
export { companyReference, loadCompanyReference, type CompanyReference, type DocumentStatus } from './company-reference.ts';
export { automaticFormat } from './document-format-reads.ts';
export { allCompanies, companyOf, lockCompany } from './company-reads.ts';
