import type { Module } from '../../module.ts';
import { customerModel } from './customer-model.ts';

export { customerModel };

/** Customers. */
export function customersModule(): Module {
  return { name: 'customers', models: [customerModel] };
}
export { customerOf, paymentDaysOf } from './customer-reads.ts';
