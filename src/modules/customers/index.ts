import type { Module } from '../../module.ts';
import { cuentaBancoClienteModel } from './customer-bank-model.ts';
import { customerModel } from './customer-model.ts';

export { cuentaBancoClienteModel, customerModel };

/** Customers and their bank accounts. */
export function customersModule(): Module {
  return { name: 'customers', models: [customerModel, cuentaBancoClienteModel] };
}
export { customerOf, customerWithAddress, debitAccountOf, paymentDaysOf } from './customer-reads.ts';
export { addToRiskStatement, lockCustomerRisk, reachedRiskOf, reachedRiskRead, riskOf, storeCustomerRisk, storedAndCountedRisks, storeEveryRisk, type CustomerRisk } from './customer-risk.ts';
