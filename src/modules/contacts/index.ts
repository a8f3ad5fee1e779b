import type { Module } from '../../module.ts';
import { grupoClientesModel, proveedorModel, contactoModel, agenteModel, agenciaTransporteModel } from './contact-models.ts';

export { grupoClientesModel, proveedorModel, contactoModel, agenteModel, agenciaTransporteModel };

/** Customer groups, suppliers, contacts (addresses), agents and carriers. */
export function contactsModule(): Module {
  return { name: 'contacts', models: [grupoClientesModel, proveedorModel, contactoModel, agenteModel, agenciaTransporteModel] };
}
export { contactOf, groupRateOf, supplierOf } from './contact-reads.ts';
