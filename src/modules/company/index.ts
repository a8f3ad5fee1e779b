import type { Module } from '../../module.ts';
import { declareCompanyReference } from './company-reference.ts';
import { empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel } from './company-models.ts';

export { empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel };

/** Companies, warehouses, document sequences and document statuses. */
export function companyModule(): Module {
  return { name: 'company', models: [empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel], setup: declareCompanyReference };
}
export { companyReference, type CompanyReference, type DocumentStatus } from './company-reference.ts';
