import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { DOCUMENT_TYPES } from '../src/modules/documents/document-types.ts';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

const year = new Date().getUTCFullYear();

/** Net, VAT at 21 % and total in cents, computed independently of the service. */
function expectedCents(lines: Array<{ qty: number; cents: number; dto?: number }>) {
  const net = lines.reduce((sum, l) => sum + (l.qty * l.cents * (100 - (l.dto ?? 0))) / 100, 0);
  const vat = Math.round((net * 21) / 100);
  return { neto: net / 100, totaliva: vat / 100, total: (net + vat) / 100 };
}

async function setup(t: TestApp) {
  const ok = async (url: string, body: Record<string, unknown>) => {
    const response = await t.call('POST', url, body);
    assert.equal(response.status, 201, `${url}: ${JSON.stringify(response.body)}`);
    return response.body;
  };
  await ok('/api/3/cliente', { codcliente: 'BETA', nombre: 'Beta Trading', cifnif: 'B22222222' });
  await ok('/api/3/proveedor', { codproveedor: 'SUP1', nombre: 'Supplier One', cifnif: 'B77777777' });
  for (const [referencia, precio, coste, ventasinstock] of [['P001', 10.5, 6, true], ['P002', 4, 2, true], ['P003', 45, 30, false]] as const) {
    const product = await ok('/api/3/producto', { referencia, descripcion: `Product ${referencia}`, precio, ventasinstock, codimpuesto: 'IVA21' });
    const variant = (await t.call('GET', `/api/3/variante?filter[referencia]=${referencia}`)).body[0];
    await t.call('PATCH', `/api/3/variante/${variant.idvariante}`, { coste });
    assert.equal(product.referencia, referencia);
  }
}

const LINES = JSON.stringify([
  { referencia: 'P001', cantidad: 2 },
  { referencia: 'P002', cantidad: 1, pvpunitario: 5, dtopor: 10 },
  { descripcion: 'Free text line', cantidad: 3, pvpunitario: 1.25 },
]);

forEachEngine('document creation', (t) => {
  before(async () => setup(t()));

  for (const type of DOCUMENT_TYPES) {
    it(`crear${type.name}: 3 lines, totals to the cent`, async () => {
      const subject: Record<string, string> = type.side === 'sales' ? { codcliente: 'BETA' } : { codproveedor: 'SUP1' };
      const response = await t().request({
        method: 'POST',
        url: `/api/3/crear${type.name}`,
        payload: new URLSearchParams({ ...subject, lineas: LINES, observaciones: "three lines" }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(response.statusCode, 200, response.body);
      const { doc, lines } = response.json();
      // Sales lines take the sale price, purchase lines the cost.
      const first = type.side === 'sales' ? 1050 : 600;
      const expected = expectedCents([{ qty: 2, cents: first }, { qty: 1, cents: 500, dto: 10 }, { qty: 3, cents: 125 }]);
      assert.deepEqual({ neto: doc.neto, totaliva: doc.totaliva, total: doc.total }, expected);
      assert.equal(doc.observaciones, 'three lines');
      assert.equal(doc.codejercicio, String(year));
      assert.equal(doc.codserie, 'A');
      assert.match(doc.codigo, new RegExp(`^${type.pattern.replace('{EJE}', String(year)).replace('{SERIE}', 'A').replace('{NUM}', '')}\\d+$`));
      assert.equal(doc[type.subjectName], type.side === 'sales' ? 'Beta Trading' : 'Supplier One');
      assert.deepEqual(lines.map((l: any) => [l.referencia, l.cantidad, l.pvpunitario, l.pvptotal, l.iva]), [
        ['P001', 2, first / 100, (2 * first) / 100, 21],
        ['P002', 1, 5, 4.5, 21],
        [null, 3, 1.25, 3.75, 21],
      ]);
      assert.ok(lines.every((l: any) => l[type.key] === doc[type.key]));
      // What was returned is what is stored.
      const stored = await t().call('GET', `/api/3/${type.header.resource}/${doc[type.key]}`);
      assert.deepEqual(stored.body, doc);
      if (type.invoice) {
        const receipts = (await t().call('GET', `/api/3/${type.side === 'sales' ? 'recibocliente' : 'reciboproveedor'}?filter[idfactura]=${doc.idfactura}`)).body;
        assert.deepEqual(receipts.map((r: any) => [r.importe, r.pagado, r.codigofactura]), [[expected.total, false, doc.codigo]]);
      }
    });
  }

  it('takes JSON bodies with lines as an array, and PUT creates as POST does', async () => {
    const json = await t().call('POST', '/api/3/crearPedidoCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'x', cantidad: 2, pvpunitario: 10 }] });
    assert.equal(json.status, 200, JSON.stringify(json.body));
    assert.equal(json.body.doc.total, 24.2);
    const put = await t().call('PUT', '/api/3/crearPedidoCliente', { codcliente: 'BETA', lineas: '[{"descripcion":"y","pvpunitario":1}]' });
    assert.equal(put.status, 200);
    assert.equal(put.body.doc.total, 1.21);
    assert.equal((await t().call('GET', '/api/3/crearPedidoCliente')).status, 405);
  });

  it('answers unknown customers, suppliers and warehouses with 404, bad input with 400/422', async () => {
    assert.deepEqual((await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'NOPE', lineas: [] })).body, { status: 'error', message: 'customer-not-found' });
    const supplier = await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'NOPE', lineas: [] });
    assert.deepEqual([supplier.status, supplier.body.message], [404, 'supplier-not-found']);
    const warehouse = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', codalmacen: 'ZZ', lineas: [] });
    assert.deepEqual([warehouse.status, warehouse.body.message], [404, 'warehouse-not-found']);
    const missing = await t().call('POST', '/api/3/crearAlbaranProveedor', { codcliente: 'BETA', lineas: [] });
    assert.deepEqual([missing.status, missing.body.fields], [422, { codcliente: 'unknown-field', codproveedor: 'required' }]);
    for (const lineas of ['{"descripcion":"x"}', '["x"]', 'not json', 42]) {
      const bad = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', lineas });
      assert.deepEqual([bad.status, bad.body.message], [400, 'invalid-lines'], String(lineas));
    }
    const badLine = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', lineas: [{ cantidad: 1 }, { cantidad: 'two', pvpunitario: 'x', colour: 'red' }] });
    assert.equal(badLine.status, 422);
    assert.deepEqual(badLine.body.fields, { 'lineas[1].cantidad': 'invalid-number', 'lineas[1].pvpunitario': 'invalid-number', 'lineas[1].colour': 'unknown-field' });
    const date = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', fecha: '31-02-2026' });
    assert.deepEqual([date.status, date.body.message], [400, 'invalid-date']);
    const readOnly = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', total: 5, numero: '7' });
    assert.deepEqual(readOnly.body.fields, { total: 'read-only', numero: 'read-only' });
  });

  it('accepts dd-mm-yyyy dates, creates missing fiscal years and refuses closed ones', async () => {
    const old = await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'BETA', fecha: '15-06-2019', hora: '10:00:00' });
    assert.equal(old.status, 200, JSON.stringify(old.body));
    assert.deepEqual([old.body.doc.fecha, old.body.doc.hora, old.body.doc.codejercicio], ['2019-06-15', '10:00:00', '2019']);
    assert.equal((await t().call('GET', '/api/3/ejercicio/2019')).body.estado, 'ABIERTO');
    await t().call('PATCH', '/api/3/ejercicio/2019', { estado: 'CERRADO' });
    const closed = await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'BETA', fecha: '2019-07-01' });
    assert.deepEqual([closed.status, closed.body.message], [422, 'exercise-closed']);
  });

  it('numbers 50 concurrent invoices 1..50 with no gap and no duplicate', async () => {
    assert.equal((await t().call('POST', '/api/3/serie', { codserie: 'Q', descripcion: 'Concurrency' })).status, 201);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', codserie: 'Q', lineas: [{ descripcion: `n${i}`, pvpunitario: i + 1 }] })),
    );
    for (const response of responses) assert.equal(response.status, 200, JSON.stringify(response.body));
    const numbers = responses.map((r) => Number(r.body.doc.numero)).sort((a, b) => a - b);
    assert.deepEqual(numbers, Array.from({ length: 50 }, (_, i) => i + 1));
    const codes = new Set(responses.map((r) => r.body.doc.codigo));
    assert.equal(codes.size, 50);
    assert.ok(codes.has(`F${year}Q50`));
  });

  it('leaves no trace when a line fails after the header and lines were written', async () => {
    const count = async (url: string) => Number((await t().call('GET', url)).headers['x-total-count']);
    const docsBefore = await count('/api/3/albarancliente?limit=1');
    const linesBefore = await count('/api/3/lineaalbarancliente?limit=1');
    const previous = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [] });
    const number = Number(previous.body.doc.numero);
    // P003 may not be sold without stock and has none: the stock step (after the lines) refuses.
    const failed = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'ok', pvpunitario: 1 }, { referencia: 'P003', cantidad: 1 }] });
    assert.deepEqual([failed.status, failed.body.message, failed.body.line, failed.body.referencia], [422, 'not-enough-stock', 'lineas[1]', 'P003']);
    assert.equal(await count('/api/3/albarancliente?limit=1'), docsBefore + 1);
    assert.equal(await count('/api/3/lineaalbarancliente?limit=1'), linesBefore);
    const next = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [] });
    assert.equal(Number(next.body.doc.numero), number + 1, 'no number consumed by the failed creation');
  });

  it('moves stock for delivery notes and invoices and refuses selling below zero', async () => {
    const stock = async (referencia: string) => (await t().call('GET', `/api/3/stock?filter[referencia]=${referencia}&filter[codalmacen]=ALG`)).body[0];
    await t().call('POST', '/api/3/stock', { referencia: 'P003', idproducto: (await t().call('GET', '/api/3/producto?filter[referencia]=P003')).body[0].idproducto, codalmacen: 'ALG', cantidad: 5 });
    const note = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ referencia: 'P003', cantidad: 2 }] });
    assert.equal(note.status, 200, JSON.stringify(note.body));
    assert.equal((await stock('P003')).cantidad, 3);
    assert.equal((await t().call('GET', '/api/3/producto?filter[referencia]=P003')).body[0].stockfis, 3);
    const received = await t().call('POST', '/api/3/crearAlbaranProveedor', { codproveedor: 'SUP1', lineas: [{ referencia: 'P003', cantidad: 10 }] });
    assert.equal(received.status, 200);
    assert.equal((await stock('P003')).cantidad, 13);
    const order = await t().call('POST', '/api/3/crearPedidoCliente', { codcliente: 'BETA', lineas: [{ referencia: 'P003', cantidad: 4 }] });
    assert.equal(order.status, 200);
    assert.deepEqual([(await stock('P003')).cantidad, (await stock('P003')).reservada, (await stock('P003')).disponible], [13, 4, 9]);
    const tooMany = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', lineas: [{ referencia: 'P003', cantidad: 14 }] });
    assert.deepEqual([tooMany.status, tooMany.body.message], [422, 'not-enough-stock']);
    assert.equal((await stock('P003')).cantidad, 13);
  });

  it('applies the customer retention to lines without irpf, and line irpf overrides it (reference API tests)', async () => {
    const note = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'línea con IRPF', cantidad: 1, pvpunitario: 100, irpf: 15 }] });
    assert.deepEqual([note.body.doc.neto, note.body.doc.irpf, note.body.doc.totalirpf, note.body.lines[0].irpf], [100, 15, 15, 15]);
    await t().call('POST', '/api/3/cliente', { codcliente: 'RET7', nombre: 'Retained', codretencion: 'IRPF7' });
    const inherited = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'RET7', lineas: [{ descripcion: 'a', pvpunitario: 100 }, { descripcion: 'b', pvpunitario: 100, irpf: 15 }] });
    assert.deepEqual(inherited.body.lines.map((l: any) => l.irpf), [7, 15]);
    assert.deepEqual([inherited.body.doc.irpf, inherited.body.doc.totalirpf, inherited.body.doc.total], [15, 22, 220]);
    const ordered = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'c', pvpunitario: 1, orden: 10, coste: 40 }] });
    assert.deepEqual([ordered.body.lines[0].orden, ordered.body.lines[0].coste], [10, 40]);
  });

  it('marks the receipts of an invoice created with pagada', async () => {
    const paid = await t().request({
      method: 'POST',
      url: '/api/3/crearFacturaCliente',
      payload: new URLSearchParams({ codcliente: 'BETA', pagada: '1', lineas: '[{"descripcion":"paid","pvpunitario":10}]' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const { doc } = paid.json();
    assert.deepEqual([doc.pagada, doc.total], [true, 12.1]);
    const [receipt] = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${doc.idfactura}`)).body;
    assert.deepEqual([receipt.pagado, receipt.importe], [true, 12.1]);
    const payments = (await t().call('GET', `/api/3/pagocliente?filter[idrecibo]=${receipt.idrecibo}`)).body;
    assert.deepEqual(payments.map((p: any) => p.importe), [12.1]);
  });

  it('emits document, receipt and payment events, and none for a failed creation', async () => {
    const seen: string[] = [];
    const { events } = t().app.ctx;
    const offs = [
      events.on('document.created', (e) => void seen.push(`created:${e.type}:${e.lines.length}`)),
      events.on('payment.recorded', (e) => void seen.push(`payment:${e.type}:${e.count}`)),
      events.on('receipt.paid', (e) => void seen.push(`paid:${e.receipt.importe}`)),
    ];
    await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'SUP1', pagada: true, lineas: [{ descripcion: 'e', pvpunitario: 10 }] });
    await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'NOPE' });
    for (const off of offs) off();
    assert.deepEqual(seen, ['created:FacturaProveedor:1', 'paid:12.1', 'payment:FacturaProveedor:1']);
  });

  it('fills a gap in customer invoice numbers, taking the date of the next invoice (reference 5.6)', async () => {
    await t().call('POST', '/api/3/serie', { codserie: 'G', descripcion: 'Gaps' });
    const make = (fecha: string) => t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', codserie: 'G', fecha, lineas: [] });
    const one = (await make('2026-01-10')).body.doc;
    const two = (await make('2026-01-12')).body.doc;
    const three = (await make('2026-01-15')).body.doc;
    assert.deepEqual([one.numero, two.numero, three.numero], ['1', '2', '3']);
    assert.equal((await t().call('DELETE', `/api/3/facturacliente/${two.idfactura}`)).status, 200);
    const filler = (await make('2026-01-20')).body.doc;
    assert.deepEqual([filler.numero, filler.fecha, filler.codigo], ['2', '2026-01-15', 'F2026G2']);
    assert.equal((await make('2026-01-21')).body.doc.numero, '4');
    // Delivery notes do not fill gaps.
    await t().call('POST', '/api/3/serie', { codserie: 'H', descripcion: 'No gaps' });
    const notes = [];
    for (let i = 0; i < 3; i++) notes.push((await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', codserie: 'H', lineas: [] })).body.doc);
    await t().call('DELETE', `/api/3/albarancliente/${notes[1].idalbaran}`);
    assert.equal((await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', codserie: 'H', lineas: [] })).body.doc.numero, '4');
  });

  it('keeps customer invoices in date order within a serie (reference 5.3 chronology)', async () => {
    await t().call('POST', '/api/3/serie', { codserie: 'D', descripcion: 'Dates' });
    const make = (fecha: string) => t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', codserie: 'D', fecha, lineas: [] });
    const first = await make('2026-01-10');
    assert.equal(first.status, 200);
    const earlier = await make('2026-01-09');
    assert.deepEqual([earlier.status, earlier.body.message], [422, 'invoice-date-order']);
    const later = await make('2026-01-11');
    assert.equal(later.status, 200);
    const back = await t().call('PUT', `/api/3/editarFacturaCliente/${later.body.doc.idfactura}`, { fecha: '2026-01-09' });
    assert.deepEqual([back.status, back.body.message], [422, 'invoice-date-order']);
    const moveFirst = await t().call('PATCH', `/api/3/facturacliente/${first.body.doc.idfactura}`, { fecha: '2026-01-12' });
    assert.deepEqual([moveFirst.status, moveFirst.body.message], [422, 'invoice-date-order']);
    // Supplier invoices have no such rule.
    await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'SUP1', codserie: 'D', fecha: '2026-01-10' });
    assert.equal((await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'SUP1', codserie: 'D', fecha: '2026-01-05' })).status, 200);
  });

  it('reproduces the reference numeric scenarios through the API', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'RECARGO', nombre: 'Surcharge customer', regimeniva: 'Recargo' });
    await t().call('POST', '/api/3/cliente', { codcliente: 'EXENTO', nombre: 'Exempt customer', regimeniva: 'Exento' });
    const create = async (body: Record<string, unknown>) => {
      const response = await t().call('POST', '/api/3/crearPresupuestoCliente', body);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.doc;
    };
    // 5.1.3: document and line discounts.
    const discounts = await create({ codcliente: 'BETA', dtopor1: 5, dtopor2: 3, lineas: [
      { descripcion: 'a', pvpunitario: 100 },
      { descripcion: 'b', cantidad: 2, pvpunitario: 10, dtopor: 10, dtopor2: 5, codimpuesto: 'IVA4' },
    ] });
    assert.deepEqual([discounts.neto, discounts.netosindto, discounts.totaliva, discounts.total], [107.91, 117.1, 19.98, 127.89]);
    // 5.1.6: surcharge regime customer (the tax's recargo applies).
    const surcharge = await create({ codcliente: 'RECARGO', lineas: [{ descripcion: 'a', pvpunitario: 100 }, { descripcion: 'b', cantidad: 2, pvpunitario: 10 }] });
    assert.deepEqual([surcharge.neto, surcharge.totaliva, surcharge.totalrecargo, surcharge.total], [120, 25.2, 6.24, 151.44]);
    // 5.1.8: suplidos.
    const suplidos = await create({ codcliente: 'BETA', lineas: [{ descripcion: 'a', cantidad: 3, pvpunitario: 50 }, { descripcion: 's', pvpunitario: 20, suplido: true }, { descripcion: 't', cantidad: 2, pvpunitario: 15, suplido: true }] });
    assert.deepEqual([suplidos.neto, suplidos.totaliva, suplidos.totalsuplidos, suplidos.total], [150, 31.5, 50, 231.5]);
    // 5.1.10: exempt customer.
    const exempt = await create({ codcliente: 'EXENTO', lineas: [{ descripcion: 'a', pvpunitario: 100 }] });
    assert.deepEqual([exempt.totaliva, exempt.total], [0, 100]);
    // 5.2: intra-community sale.
    const intra = await create({ codcliente: 'BETA', operacion: 'intracomunitaria', lineas: [{ descripcion: 'a', pvpunitario: 100 }] });
    assert.equal(intra.total, 100);
    // 5.1.9: tax-free serie.
    await t().call('POST', '/api/3/serie', { codserie: 'NT', descripcion: 'Sin IVA', siniva: true });
    const taxFree = await create({ codcliente: 'BETA', codserie: 'NT', lineas: [{ descripcion: 'a', pvpunitario: 100 }, { descripcion: 'b', cantidad: 2, pvpunitario: 10, codimpuesto: 'IVA4' }] });
    assert.deepEqual([taxFree.neto, taxFree.totaliva, taxFree.total], [120, 0, 120]);
  });
});
