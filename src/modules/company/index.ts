import type { Module } from '../../module.ts';
import { empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel } from './company-models.ts';

export { empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel };

/** Companies, warehouses, document sequences and document statuses. */
export function companyModule(): Module {
  return { name: 'company', models: [empresaModel, almacenModel, secuenciaDocumentoModel, estadoDocumentoModel] };
}
