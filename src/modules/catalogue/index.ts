import type { Module } from '../../module.ts';
import { fabricanteModel, familiaModel, productoProveedorModel, stockModel, tarifaModel, varianteModel } from './catalogue-models.ts';
import { productModel } from './product-model.ts';

export { moveStock, settleStock, type StockEffect, type StockMove } from './stock.ts';
export { fabricanteModel, familiaModel, productModel, productoProveedorModel, stockModel, tarifaModel, varianteModel };

/** Products, their variants, stock per warehouse, families, manufacturers, rates and supplier prices. */
export function catalogueModule(): Module {
  return {
    name: 'catalogue',
    models: [tarifaModel, familiaModel, fabricanteModel, productModel, varianteModel, stockModel, productoProveedorModel],
  };
}
export { applyRate, productsForLines, rateOf, supplierPricesFor, type LineProduct, type Rate, type SupplierPrice } from './line-products.ts';
