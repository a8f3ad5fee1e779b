import { f, today } from '../../models/fields.ts';
import { bankAccountModel } from '../contacts/index.ts';

/**
 * Bank accounts of customers (table `cuentasbcocli`), deleted with their customer; they also hold
 * the SEPA direct-debit mandate (`mandato`, unique; `fmandato`, the day it was signed, by default
 * the day the account is created).
 */
export const cuentaBancoClienteModel = bankAccountModel({
  name: 'CuentaBancoCliente',
  table: 'cuentasbcocli',
  owner: { field: 'codcliente', table: 'clientes', length: 10 },
  extra: {
    fmandato: f.date({ initial: today }),
    mandato: f.string(35, { unique: true }),
  },
});
