import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * The Spanish rules read each line's product type (`productos.tipo`): a used-goods business buys
 * second-hand products without VAT (CalculatorModSpain). A line may name its product by reference
 * or by `idproducto` alone; either way the type must reach the calculation.
 */
forEachEngine('product types in the calculation', (t) => {
  let idproducto = 0;
  before(async () => {
    assert.equal((await t().call('PATCH', '/api/3/empresa/1', { regimeniva: 'Bienes usados' })).status, 200);
    assert.equal((await t().call('POST', '/api/3/proveedor', { codproveedor: 'USED', nombre: 'Used goods seller', cifnif: '12345678Z' })).status, 201);
    const product = await t().call('POST', '/api/3/producto', { referencia: 'USED1', descripcion: 'Second-hand watch', precio: 100, tipo: 'Segunda mano', codimpuesto: 'IVA21' });
    assert.equal(product.status, 201, JSON.stringify(product.body));
    idproducto = product.body.idproducto;
  });

  it('buys a second-hand product without VAT', async () => {
    const answer = await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'USED', lineas: [{ referencia: 'USED1', cantidad: 2, pvpunitario: 450, codimpuesto: 'IVA21' }] });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.lines[0].idproducto, idproducto);
    assert.deepEqual([answer.body.doc.neto, answer.body.doc.totaliva, answer.body.doc.total], [900, 0, 900]);
  });

  it('refunds a margin-scheme sale the same once the product\'s reference has changed', async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'BUYER', nombre: 'Buyer', cifnif: '12345678Z' })).status, 201);
    const sell = async () => {
      // Sold for 200, bought for 150: VAT on the margin, not on the price.
      const sale = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BUYER', lineas: [{ referencia: 'USED1', cantidad: 1, pvpunitario: 200, coste: 150, codimpuesto: 'IVA21' }] });
      assert.equal(sale.status, 200, JSON.stringify(sale.body));
      assert.ok(sale.body.doc.totaliva > 0 && sale.body.doc.totaliva < 42, `VAT on the margin: ${sale.body.doc.totaliva}`);
      return sale.body.doc;
    };
    const refund = async (sale: { idfactura: number; fecha: string }) => {
      const answer = await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: sale.idfactura, fecha: sale.fecha });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.lines[0].idproducto, idproducto);
      return [answer.body.doc.neto, answer.body.doc.totaliva, answer.body.doc.total];
    };
    const first = await sell();
    const second = await sell();
    const whileNamed = await refund(first);
    // The line keeps its product's id; the variant's reference is renamed since.
    const [variant] = (await t().call('GET', '/api/3/variante?filter[referencia]=USED1')).body;
    assert.equal((await t().call('PATCH', `/api/3/variante/${variant.idvariante}`, { referencia: 'USED1-B' })).status, 200);
    assert.deepEqual(await refund(second), whileNamed, 'the product\'s type still reaches the calculation and the entry');
  });
});
