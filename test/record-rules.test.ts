import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * The rules between records (facturascripts-model.md 2.x model notes and 3.13): defaults from the
 * settings, the contact of a customer or supplier, records that cannot be deleted, fiscal years
 * that cannot overlap, the customer risk, supplier prices from purchases, codes derived from
 * descriptions, unknown subjects of any length, and the methods of the custom endpoints.
 */
const year = new Date().getUTCFullYear();

async function created(t: TestApp, url: string, body: Record<string, unknown>, status = 201) {
  const response = await t.call('POST', url, body);
  assert.equal(response.status, status, `${url}: ${JSON.stringify(response.body)}`);
  return response.body;
}

const setSettings = (t: TestApp, properties: Record<string, unknown>) => t.call('PUT', '/api/3/settings/default', { properties });

forEachEngine('rules between records', (t) => {
  before(async () => {
    await created(t(), '/api/3/proveedor', { codproveedor: 'SUPP', nombre: 'Supplier', cifnif: 'B1' });
  });

  it('gives new products, customers, suppliers, warehouses, payment methods and fiscal years their defaults from the settings', async () => {
    const product = await created(t(), '/api/3/producto', { referencia: 'DEF1', precio: 10 });
    assert.deepEqual([product.codimpuesto, product.ventasinstock], ['IVA21', true]);
    assert.equal((await created(t(), '/api/3/producto', { referencia: 'DEF2', codimpuesto: null })).codimpuesto, null, 'an explicit null is kept');
    // Invoiceable without stock: the stock goes negative.
    const invoice = await created(t(), '/api/3/crearFacturaCliente', { codcliente: (await created(t(), '/api/3/cliente', { nombre: 'Buyer' })).codcliente, lineas: [{ referencia: 'DEF1', cantidad: 3 }] }, 200);
    assert.equal(invoice.doc.total, 36.3);
    assert.equal((await t().call('GET', `/api/3/producto/${product.idproducto}`)).body.stockfis, -3);
    assert.equal((await setSettings(t(), { ventasinstock: false, codretencion: 'IRPF15' })).status, 200);
    assert.equal((await created(t(), '/api/3/producto', { referencia: 'DEF3' })).ventasinstock, false);

    const customer = await created(t(), '/api/3/cliente', { nombre: 'Defaulted' });
    // Payment method and serie are written on the record (issue 10), so a later settings change
    // does not move this customer.
    assert.deepEqual([customer.tipoidfiscal, customer.codretencion, customer.codpago, customer.codserie], ['NIF', 'IRPF15', 'CONT', 'A']);
    const supplier = await created(t(), '/api/3/proveedor', { nombre: 'Defaulted', cifnif: 'B2' });
    assert.deepEqual([supplier.tipoidfiscal, supplier.codretencion, supplier.codpago, supplier.codserie], ['NIF', 'IRPF15', 'CONT', 'A']);
    const own = await created(t(), '/api/3/cliente', { nombre: 'Own', tipoidfiscal: 'CIF', codretencion: null, codpago: 'TRANS', codserie: null });
    assert.deepEqual([own.tipoidfiscal, own.codretencion, own.codpago, own.codserie], ['CIF', null, 'TRANS', null], 'given values and explicit nulls are kept');
    assert.equal((await setSettings(t(), { ventasinstock: true, codretencion: null, codpago: 'TARJETA' })).status, 200);
    assert.equal((await t().call('GET', `/api/3/cliente/${customer.codcliente}`)).body.codpago, 'CONT');
    assert.equal((await created(t(), '/api/3/cliente', { nombre: 'Later' })).codpago, 'TARJETA');
    assert.equal((await setSettings(t(), { codpago: 'CONT' })).status, 200);

    const warehouse = await created(t(), '/api/3/almacen', { codalmacen: 'W2', nombre: 'Second' });
    assert.deepEqual([warehouse.idempresa, warehouse.codpais], [1, 'ESP']);
    assert.equal((await created(t(), '/api/3/formapago', { codpago: 'P2', descripcion: 'Pay' })).idempresa, 1);
    const exercise = await created(t(), '/api/3/ejercicio', { codejercicio: '2080', nombre: '2080', fechainicio: '2080-01-01', fechafin: '2080-12-31' });
    assert.equal(exercise.idempresa, 1);
  });

  it('gives customers and suppliers their contact, whose address and country documents carry', async () => {
    const customer = await created(t(), '/api/3/cliente', {
      codcliente: 'ADDR', nombre: 'Ana María López', razonsocial: 'López e Hijos SL', cifnif: 'B12345678', email: 'ana@example.com', telefono1: '600000000',
    });
    assert.equal(typeof customer.idcontactofact, 'number');
    assert.equal(customer.idcontactoenv, null);
    assert.deepEqual((await t().call('GET', '/api/3/cliente/ADDR')).body, customer);
    const contact = (await t().call('GET', `/api/3/contacto/${customer.idcontactofact}`)).body;
    assert.deepEqual(
      [contact.nombre, contact.apellidos, contact.descripcion, contact.empresa, contact.cifnif, contact.email, contact.telefono1, contact.codcliente, contact.codpais],
      ['Ana', 'María López', 'Ana María López', 'López e Hijos SL', 'B12345678', 'ana@example.com', '600000000', 'ADDR', 'ESP'],
    );
    const address = { direccion: 'Calle Mayor 1', codpostal: '28001', ciudad: 'Madrid', provincia: 'Madrid' };
    assert.equal((await t().call('PATCH', `/api/3/contacto/${customer.idcontactofact}`, address)).status, 200);
    const sale = await created(t(), '/api/3/crearFacturaCliente', { codcliente: 'ADDR', lineas: [{ descripcion: 'x', pvpunitario: 10 }] }, 200);
    assert.deepEqual([sale.doc.codpais, sale.doc.direccion, sale.doc.codpostal, sale.doc.ciudad, sale.doc.provincia, sale.doc.idcontactofact],
      ['ESP', ...Object.values(address), customer.idcontactofact]);

    const supplier = await created(t(), '/api/3/proveedor', { codproveedor: 'ADDRP', nombre: 'Proveedora Norte', cifnif: 'B87654321' });
    const supplierContact = (await t().call('GET', `/api/3/contacto/${supplier.idcontacto}`)).body;
    assert.deepEqual([supplierContact.nombre, supplierContact.codproveedor, supplierContact.cifnif, supplierContact.codpais], ['Proveedora Norte', 'ADDRP', 'B87654321', 'ESP']);
    await t().call('PATCH', `/api/3/contacto/${supplier.idcontacto}`, { direccion: 'Polígono 3' });
    const purchase = await created(t(), '/api/3/crearAlbaranProveedor', { codproveedor: 'ADDRP', lineas: [] }, 200);
    assert.deepEqual([purchase.doc.codpais, purchase.doc.direccion], ['ESP', 'Polígono 3']);
    // A customer created with its own billing contact keeps it (no second contact).
    const own = await created(t(), '/api/3/cliente', { codcliente: 'OWNC', nombre: 'Own contact', idcontactofact: customer.idcontactofact });
    assert.equal(own.idcontactofact, customer.idcontactofact);
    assert.equal((await t().call('GET', '/api/3/contacto?filter[codcliente]=OWNC')).headers['x-total-count'], '0');
  });

  it('refuses to delete the installation defaults, locked statuses and products used in documents (409)', async () => {
    const defaults: Array<[string, string]> = [
      ['impuesto/IVA21', 'codimpuesto'], ['serie/A', 'codserie'], ['serie/R', 'codserierec'], ['formapago/CONT', 'codpago'],
      ['divisa/EUR', 'coddivisa'], ['almacen/ALG', 'codalmacen'], ['pais/ESP', 'codpais'], ['empresa/1', 'idempresa'],
    ];
    for (const [path, setting] of defaults) {
      const answer = await t().call('DELETE', `/api/3/${path}`);
      assert.deepEqual([answer.status, answer.body], [409, { status: 'error', message: 'default-record', setting }], path);
      assert.equal((await t().call('GET', `/api/3/${path}`)).status, 200, path);
    }
    // Once the setting names another record, the former default can go.
    await created(t(), '/api/3/serie', { codserie: 'NEWD', descripcion: 'New default' });
    assert.equal((await setSettings(t(), { codserie: 'NEWD' })).status, 200);
    assert.equal((await t().call('DELETE', '/api/3/serie/NEWD')).body.message, 'default-record');
    assert.equal((await setSettings(t(), { codserie: 'A' })).status, 200);
    assert.equal((await t().call('DELETE', '/api/3/serie/NEWD')).status, 200);

    assert.deepEqual((await t().call('DELETE', '/api/3/estadodocumento/1')).body, { status: 'error', message: 'record-locked' });
    const status = await created(t(), '/api/3/estadodocumento', { nombre: 'Mine', tipodoc: 'PedidoCliente' });
    assert.equal((await t().call('DELETE', `/api/3/estadodocumento/${status.idestado}`)).status, 200);

    const sold = await created(t(), '/api/3/producto', { referencia: 'SOLD', precio: 5 });
    const variant = await created(t(), '/api/3/variante', { idproducto: sold.idproducto, referencia: 'SOLD-RED', precio: 6 });
    await created(t(), '/api/3/crearPresupuestoProveedor', { codproveedor: 'SUPP', lineas: [{ referencia: 'SOLD-RED' }] }, 200);
    for (const path of [`producto/${sold.idproducto}`, `variante/${variant.idvariante}`]) {
      const answer = await t().call('DELETE', `/api/3/${path}`);
      assert.deepEqual([answer.status, answer.body.message, answer.body.reason, answer.body.referencia], [409, 'record-in-use', 'document-lines', 'SOLD-RED'], path);
    }
    const unsold = await created(t(), '/api/3/producto', { referencia: 'UNSOLD' });
    assert.equal((await t().call('DELETE', `/api/3/producto/${unsold.idproducto}`)).status, 200);
  });

  it('keeps the fiscal years of one company from overlapping (422)', async () => {
    await created(t(), '/api/3/ejercicio', { codejercicio: '2091', nombre: '2091', fechainicio: '2091-01-01', fechafin: '2091-12-31' });
    const overlapping = await t().call('POST', '/api/3/ejercicio', { codejercicio: 'X91', nombre: 'Split', fechainicio: '2091-07-01', fechafin: '2092-06-30' });
    assert.deepEqual([overlapping.status, overlapping.body.message, overlapping.body.fields],
      [422, 'validation-failed', { fechainicio: 'overlapping-exercise', fechafin: 'overlapping-exercise' }]);
    assert.equal((await t().call('GET', '/api/3/ejercicio/X91')).status, 404);
    // Another company may cover the same dates; the next year fits; stretching it over 2091 does not.
    const company = await created(t(), '/api/3/empresa', { nombre: 'Second company' });
    assert.equal((await t().call('POST', '/api/3/ejercicio', { codejercicio: 'B91', nombre: 'B91', idempresa: company.idempresa, fechainicio: '2091-01-01', fechafin: '2091-12-31' })).status, 201);
    await created(t(), '/api/3/ejercicio', { codejercicio: '2092', nombre: '2092', fechainicio: '2092-01-01', fechafin: '2092-12-31' });
    const stretched = await t().call('PATCH', '/api/3/ejercicio/2092', { fechainicio: '2091-12-01' });
    assert.deepEqual([stretched.status, stretched.body.fields?.fechainicio], [422, 'overlapping-exercise']);
    assert.equal((await t().call('PATCH', '/api/3/ejercicio/2092', { nombre: 'Renamed' })).status, 200);
    // A document needing a calendar year that would overlap a fiscal year of its company is refused.
    await created(t(), '/api/3/ejercicio', { codejercicio: 'H93', nombre: 'Half', fechainicio: '2093-07-01', fechafin: '2094-06-30' });
    await created(t(), '/api/3/cliente', { codcliente: 'FY', nombre: 'Fiscal' });
    const early = await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'FY', fecha: '2093-03-01' });
    assert.deepEqual([early.status, early.body.fields], [422, { fecha: 'overlapping-exercise' }]);
    const inside = await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'FY', fecha: '2093-08-01' });
    assert.deepEqual([inside.status, inside.body.doc?.codejercicio], [200, 'H93']);
  });

  it('keeps the customer risk from pending orders, delivery notes and unpaid invoices, and refuses documents beyond riesgomax (422)', async () => {
    await created(t(), '/api/3/cliente', { codcliente: 'RISK', nombre: 'Risky', riesgomax: 1000 });
    const risk = async () => (await t().call('GET', '/api/3/cliente/RISK')).body.riesgoalcanzado;
    const make = (doc: string, price: number) => t().call('POST', `/api/3/crear${doc}`, { codcliente: 'RISK', lineas: [{ descripcion: doc, pvpunitario: price }] });
    const order = (await make('PedidoCliente', 100)).body.doc;
    assert.equal(await risk(), 121);
    const note = (await make('AlbaranCliente', 200)).body.doc;
    assert.equal(await risk(), 363);
    const invoice = (await make('FacturaCliente', 300)).body.doc;
    assert.equal(await risk(), 726);
    assert.equal((await make('PresupuestoCliente', 1000)).status, 200, 'quotes do not count');
    assert.equal(await risk(), 726);
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: true })).status, 200);
    assert.equal(await risk(), 363);

    const invoices = async () => (await t().call('GET', '/api/3/facturacliente?filter[codcliente]=RISK')).headers['x-total-count'];
    const before = await invoices();
    const refused = await make('FacturaCliente', 600);
    assert.deepEqual([refused.status, refused.body.message, refused.body.riesgomax, refused.body.riesgoalcanzado], [422, 'customer-reached-maximum-risk', 1000, 1089]);
    assert.equal(await invoices(), before, 'nothing created');
    assert.equal(await risk(), 363);
    // Raising a pending document beyond the limit is refused too; lowering it is not.
    const raise = await t().call('PUT', `/api/3/editarPedidoCliente/${order.idpedido}`, { lineas: [{ descripcion: 'more', pvpunitario: 800 }] });
    assert.deepEqual([raise.status, raise.body.message], [422, 'customer-reached-maximum-risk']);
    // Closing the order and deleting the delivery note release their amounts.
    assert.equal((await t().call('PATCH', `/api/3/pedidocliente/${order.idpedido}`, { idestado: 6 })).status, 200);
    assert.equal(await risk(), 242);
    assert.equal((await t().call('DELETE', `/api/3/albarancliente/${note.idalbaran}`)).status, 200);
    assert.equal(await risk(), 0);
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: false })).status, 200);
    assert.equal(await risk(), 363);

    // Above the limit (it was lowered), a document with a total is refused, as in the reference,
    // while what lowers the risk (paying) still goes through.
    assert.equal((await t().call('PATCH', '/api/3/cliente/RISK', { riesgomax: 100 })).status, 200);
    assert.equal((await make('PresupuestoCliente', 10)).body.message, 'customer-reached-maximum-risk');
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: true })).status, 200);
    assert.equal(await risk(), 0);

    // No limit (0 or null): anything goes, and the risk is still kept.
    await created(t(), '/api/3/cliente', { codcliente: 'NOLIMIT', nombre: 'Unlimited', riesgomax: 0 });
    assert.equal((await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'NOLIMIT', lineas: [{ descripcion: 'big', pvpunitario: 5000 }] })).status, 200);
    assert.equal((await t().call('GET', '/api/3/cliente/NOLIMIT')).body.riesgoalcanzado, 6050);
  });

  it('adds each new document and each payment to the stored risk, and the customer-risk job corrects a risk that drifted', async () => {
    await created(t(), '/api/3/cliente', { codcliente: 'DRIFT', nombre: 'Drifting' });
    const risk = async () => (await t().call('GET', '/api/3/cliente/DRIFT')).body.riesgoalcanzado;
    const make = (doc: string, price: number, extra: Record<string, unknown> = {}) =>
      t().call('POST', `/api/3/crear${doc}`, { codcliente: 'DRIFT', lineas: [{ descripcion: doc, pvpunitario: price }], ...extra });
    const first = (await make('FacturaCliente', 100.1)).body.doc;
    await make('FacturaCliente', 0.1);
    await make('FacturaCliente', 0.2);
    assert.equal(await risk(), 121.48, '121.12 + 0.12 + 0.24, to the cent');
    assert.equal((await make('FacturaCliente', 50, { pagada: true })).status, 200);
    assert.equal(await risk(), 121.48, 'an invoice created paid adds nothing');
    await make('PedidoCliente', 10);
    await make('PresupuestoCliente', 1000);
    assert.equal(await risk(), 133.58, 'an order adds its total, a quote nothing');
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${first.idfactura}`, { pagada: true })).status, 200);
    assert.equal(await risk(), 12.46);
    await t().app.runJob('customer-risk');
    assert.equal(await risk(), 12.46, 'nothing to correct');

    // Written around the service (or through the API): the next run counts it again.
    await t().app.ctx.database.kysely.updateTable('clientes').set({ riesgoalcanzado: 999 }).where('codcliente', '=', 'DRIFT').execute();
    const last = (await make('FacturaCliente', 1)).body.doc;
    assert.equal(await risk(), 1000.21, 'a creation adds to what is stored');
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${last.idfactura}`, { pagada: true })).status, 200);
    assert.equal(await risk(), 999, 'so does a payment: it takes off what the invoice added');
    await t().app.runJob('customer-risk');
    assert.equal(await risk(), 12.46);
  });

  it('updates supplier prices from purchase documents when updatesupplierprices is on', async () => {
    const product = await created(t(), '/api/3/producto', { referencia: 'SP1', precio: 50 });
    const prices = async () => (await t().call('GET', '/api/3/productoproveedor?filter[referencia]=SP1&filter[codproveedor]=SUPP')).body;
    const buy = (doc: string, line: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      t().call('POST', `/api/3/crear${doc}`, { codproveedor: 'SUPP', lineas: [{ referencia: 'SP1', cantidad: 2, ...line }, { descripcion: 'free text', pvpunitario: 7 }], ...extra });
    // Prices are stamped with their document's date and time: the note and the order share theirs,
    // so that which is newer never depends on the second the test runs in.
    const note = (await buy('AlbaranProveedor', { pvpunitario: 30, dtopor: 10 }, { hora: '10:00:00' })).body.doc;
    let [row] = await prices();
    assert.deepEqual([row.precio, row.dtopor, row.dtopor2, row.neto, row.netoeuros, row.coddivisa, row.refproveedor, row.idproducto],
      [30, 10, 0, 27, 27, 'EUR', 'SP1', product.idproducto]);
    // The line would take the recorded discount (section 3.3): this one sends its own.
    assert.equal((await buy('PedidoProveedor', { pvpunitario: 28, dtopor: 0 }, { hora: '10:00:00' })).status, 200);
    assert.deepEqual((await prices()).map((p: any) => [p.precio, p.dtopor]), [[28, 0]]);
    // An older document does not overwrite a newer price; lines without quantity or price do not count.
    assert.equal((await buy('FacturaProveedor', { pvpunitario: 99 }, { fecha: `${year - 1}-06-01` })).status, 200);
    assert.equal((await buy('PresupuestoProveedor', { pvpunitario: 0 })).status, 200);
    assert.equal((await buy('PresupuestoProveedor', { pvpunitario: 12, cantidad: 0 })).status, 200);
    assert.deepEqual((await prices()).map((p: any) => p.precio), [28]);
    // Editing a purchase document's lines records its prices as well.
    const lines = (await t().call('GET', `/api/3/lineaalbaranproveedor?filter[idalbaran]=${note.idalbaran}`)).body;
    const edited = await t().call('PUT', `/api/3/editarAlbaranProveedor/${note.idalbaran}`, { lineas: [{ idlinea: lines[0].idlinea, pvpunitario: 26 }] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual((await prices()).map((p: any) => p.precio), [26]);
    // The next purchase line takes that price.
    const next = await buy('FacturaProveedor', {});
    assert.equal(next.body.lines[0].pvpunitario, 26);
    // Switched off, purchases leave the prices alone.
    assert.equal((await setSettings(t(), { updatesupplierprices: false })).status, 200);
    assert.equal((await buy('AlbaranProveedor', { pvpunitario: 40 })).status, 200);
    assert.deepEqual((await prices()).map((p: any) => p.precio), [26]);
    assert.equal((await setSettings(t(), { updatesupplierprices: true })).status, 200);
  });

  it('derives the codes of series, payment methods, taxes and retentions from the description', async () => {
    const codes = async (resource: string, key: string, bodies: Array<Record<string, unknown>>) => {
      const result: string[] = [];
      for (const body of bodies) result.push((await created(t(), `/api/3/${resource}`, body))[key]);
      return result;
    };
    // Series: the first 1..4 characters not yet used, then a free letter (A, B, C taken by now).
    const series = await codes('serie', 'codserie', [...Array.from({ length: 5 }, () => ({ descripcion: 'Bóveda' })), { siniva: false }, { codserie: 'OWN', descripcion: 'Bóveda' }]);
    assert.deepEqual(series, ['B', 'BO', 'BOV', 'BOVE', 'C', 'D', 'OWN']);
    // Payment methods: the first 4 characters, then with 2..9, then a number.
    const methods = await codes('formapago', 'codpago', [{ descripcion: 'Giro postal' }, { descripcion: 'giro' }, { descripcion: '¿?' }]);
    assert.deepEqual(methods.slice(0, 2), ['GIRO', 'GIRO2']);
    assert.match(methods[2]!, /^\d+$/);
    // Taxes and retentions: 3 letters and the whole percentage, then 4 letters, then a number.
    const taxes = await codes('impuesto', 'codimpuesto', [1, 2, 3].map(() => ({ descripcion: 'Impuesto especial', iva: 7.5, recargo: 0 })));
    assert.deepEqual(taxes.slice(0, 2), ['IMP7', 'IMPU7']);
    assert.match(taxes[2]!, /^\d+$/);
    const retentions = await codes('retencion', 'codretencion', [{ descripcion: 'IRPF profesionales', porcentaje: 15 }, { descripcion: 'Retención', porcentaje: 1 }]);
    // IRP15 is free, RET1 too; IRPF15 (the seeded one) would have been next.
    assert.deepEqual(retentions, ['IRP15', 'RET1']);
  });

  it('answers an unknown customer or supplier of any length with 404', async () => {
    for (const codcliente of ['NOPE', 'X'.repeat(11), 'Y'.repeat(300)]) {
      for (const url of ['/api/3/crearFacturaCliente', '/api/3/facturacliente']) {
        const answer = await t().call('POST', url, { codcliente, lineas: [] });
        assert.deepEqual([answer.status, answer.body], [404, { status: 'error', message: 'customer-not-found' }], `${url} ${codcliente.length}`);
      }
    }
    const supplier = await t().call('POST', '/api/3/crearAlbaranProveedor', { codproveedor: 'Z'.repeat(40) });
    assert.deepEqual([supplier.status, supplier.body.message], [404, 'supplier-not-found']);
    // Other bad fields are still named first (as with a short unknown code).
    const both = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'X'.repeat(11), dtopor1: 'abc' });
    assert.deepEqual([both.status, both.body.fields], [422, { dtopor1: 'invalid-number' }]);
  });

  it('answers other methods of the custom endpoints with 405 and Allow', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/api/3/crearFacturaCliente', 'POST, PUT'],
      ['DELETE', '/api/3/crearAlbaranProveedor', 'POST, PUT'],
      ['GET', '/api/3/crearFacturaRectificativaCliente', 'POST, PUT'],
      ['GET', '/api/3/editarFacturaCliente/1', 'PUT, PATCH'],
      ['POST', '/api/3/editarPedidoProveedor/1', 'PUT, PATCH'],
      ['GET', '/api/3/pagarFacturaCliente/1', 'POST, PUT'],
      ['PATCH', '/api/3/pagarFacturaProveedor/1', 'POST, PUT'],
    ];
    for (const [method, url, allowed] of cases) {
      const answer = await t().call(method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
      assert.deepEqual([answer.status, answer.body], [405, { status: 'error', message: 'method-not-allowed' }], `${method} ${url}`);
      assert.ok(String(answer.headers.allow).startsWith(allowed), `${method} ${url}: ${answer.headers.allow}`);
    }
  });
});
