import type { Module } from '../../module.ts';
import { atributoModel, atributoValorModel } from './attribute-models.ts';
import { fabricanteModel, familiaModel, productoProveedorModel, stockModel, tarifaModel, varianteModel } from './catalogue-models.ts';
import { productModel } from './product-model.ts';

export { moveStock, rebuildStockTotals, settleStock, stockChanges, stockStatements, type StockEffect, type StockMove } from './stock.ts';
export { atributoModel, atributoValorModel, fabricanteModel, familiaModel, productModel, productoProveedorModel, stockModel, tarifaModel, varianteModel };

/** Products, their variants and attributes, stock per warehouse, families, manufacturers, rates and supplier prices. */
export function catalogueModule(): Module {
  return {
    name: 'catalogue',
    models: [
      tarifaModel, familiaModel, fabricanteModel, atributoModel, atributoValorModel, productModel, varianteModel, stockModel, productoProveedorModel,
    ],
  };
}
export { variantReferences } from './product-variants.ts';
export { applyRate, productsForLines, rateOf, supplierPricesFor, type LineProduct, type Rate, type SupplierPrice } from './line-products.ts';
export { recordSupplierPrices, type BoughtPrice, type SupplierQuote } from './supplier-price-updates.ts';
