import type { Module } from '../../module.ts';
import { grupoClientesModel, proveedorModel, contactoModel, agenteModel, agenciaTransporteModel } from './contact-models.ts';
import { cuentaBancoProveedorModel } from './supplier-bank-model.ts';

export { grupoClientesModel, proveedorModel, cuentaBancoProveedorModel, contactoModel, agenteModel, agenciaTransporteModel };

/** Customer groups, suppliers and their bank accounts, contacts (addresses), agents and carriers. */
export function contactsModule(): Module {
  return {
    name: 'contacts',
    models: [grupoClientesModel, proveedorModel, cuentaBancoProveedorModel, contactoModel, agenteModel, agenciaTransporteModel],
  };
}
export { ADDRESS_FIELDS, contactOf, groupRateOf, subjectWithAddress, supplierOf, supplierWithAddress } from './contact-reads.ts';
export { addOwnerContact } from './owner-contact.ts';
export { bankAccountModel, type BankAccountSpec } from './bank-account-model.ts';
