import { bankAccountModel } from './bank-account-model.ts';

/** Bank accounts of suppliers (table `cuentasbcopro`), deleted with their supplier. */
export const cuentaBancoProveedorModel = bankAccountModel({
  name: 'CuentaBancoProveedor',
  table: 'cuentasbcopro',
  owner: { field: 'codproveedor', table: 'proveedores', length: 10 },
});
