import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

async function setup(t: TestApp) {
  assert.equal((await t.call('POST', '/api/3/cliente', { codcliente: 'BETA', nombre: 'Beta Trading', cifnif: 'B2' })).status, 201);
  assert.equal((await t.call('POST', '/api/3/proveedor', { codproveedor: 'SUP1', nombre: 'Supplier One', cifnif: 'B7' })).status, 201);
  const product = await t.call('POST', '/api/3/producto', { referencia: 'STK', descripcion: 'Stocked', precio: 10, ventasinstock: false, codimpuesto: 'IVA21' });
  assert.equal(product.status, 201);
  await t.call('POST', '/api/3/stock', { referencia: 'STK', idproducto: product.body.idproducto, codalmacen: 'ALG', cantidad: 100 });
}

const stockOf = async (t: TestApp, referencia = 'STK') => Number((await t.call('GET', `/api/3/stock?filter[referencia]=${referencia}&filter[codalmacen]=ALG`)).body[0]?.cantidad ?? 0);

forEachEngine('document lifecycle', (t) => {
  before(async () => setup(t()));

  it('pays and unpays an invoice with two receipts, recording a payment per receipt each time', async () => {
    const created = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'x', pvpunitario: 100 }] });
    const invoice = created.body.doc;
    assert.equal(invoice.total, 121);
    const [first] = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoice.idfactura}`)).body;
    assert.equal((await t().call('PATCH', `/api/3/recibocliente/${first.idrecibo}`, { importe: 100 })).status, 200);
    const second = await t().call('POST', '/api/3/recibocliente', {
      codcliente: 'BETA', idempresa: 1, idfactura: invoice.idfactura, importe: 21, numero: 2, fecha: invoice.fecha, vencimiento: '2099-01-01', codpago: 'CONT', coddivisa: 'EUR',
    });
    assert.equal(second.status, 201, JSON.stringify(second.body));

    const paid = await t().call('POST', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: true, fechapago: '20-11-2026', codpago: 'TRANS' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.ok, 'record-updated');
    assert.equal(paid.body.data.pagada, true);
    const receipts = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoice.idfactura}&sort[numero]=ASC`)).body;
    assert.deepEqual(receipts.map((r: any) => [r.importe, r.pagado, r.fechapago, r.codpago]), [[100, true, '2026-11-20', 'TRANS'], [21, true, '2026-11-20', 'TRANS']]);
    const payments = async () => (await t().call('GET', `/api/3/pagocliente?filter[idrecibo]=${receipts[0].idrecibo}`)).body;
    assert.deepEqual((await payments()).map((p: any) => p.importe), [100]);

    const again = await t().call('PUT', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: '1' });
    assert.deepEqual([again.status, again.body.ok], [200, 'no-changes']);

    const unpaid = await t().call('PUT', `/api/3/pagarFacturaCliente/${invoice.idfactura}`, { pagada: false });
    assert.deepEqual([unpaid.status, unpaid.body.data.pagada], [200, false]);
    const after = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoice.idfactura}&sort[numero]=ASC`)).body;
    assert.deepEqual(after.map((r: any) => [r.pagado, r.fechapago]), [[false, null], [false, null]]);
    assert.deepEqual((await payments()).map((p: any) => p.importe), [100, -100]);
    const all = (await t().call('GET', '/api/3/pagocliente?limit=1000')).body.filter((p: any) => after.some((r: any) => r.idrecibo === p.idrecibo));
    assert.equal(all.length, 4, 'two receipts, paid then unpaid');
  });

  it('pays an invoice receipt by receipt through the receipts\' own resource: the invoice and the customer\'s risk follow', async () => {
    const risk = async () => Number((await t().call('GET', '/api/3/clientes/BETA')).body.riesgoalcanzado);
    const before = await risk();
    const invoice = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'x', pvpunitario: 100 }] })).body.doc;
    assert.equal(await risk(), before + 121);
    const [first] = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoice.idfactura}`)).body;
    assert.equal((await t().call('PATCH', `/api/3/recibocliente/${first.idrecibo}`, { importe: 100 })).status, 200);
    const second = (await t().call('POST', '/api/3/recibocliente', {
      codcliente: 'BETA', idempresa: 1, idfactura: invoice.idfactura, importe: 21, numero: 2, fecha: invoice.fecha, vencimiento: '2099-01-01', coddivisa: 'EUR',
    })).body;
    const state = async () => (await t().call('GET', `/api/3/facturaclientes/${invoice.idfactura}`)).body.pagada;
    assert.equal((await t().call('PATCH', `/api/3/recibocliente/${first.idrecibo}`, { pagado: true, fechapago: '2026-11-20' })).status, 200);
    assert.deepEqual([await state(), await risk()], [false, before + 21], 'one receipt of two paid');
    assert.equal((await t().call('PATCH', `/api/3/recibocliente/${second.idrecibo}`, { pagado: true })).status, 200);
    assert.deepEqual([await state(), await risk()], [true, before], 'both paid: the invoice is paid');
    assert.equal((await t().call('PATCH', `/api/3/recibocliente/${first.idrecibo}`, { pagado: false })).status, 200);
    assert.deepEqual([await state(), await risk()], [false, before + 100], 'one un-paid again');
    const payments = (await t().call('GET', `/api/3/pagocliente?filter[idrecibo]=${first.idrecibo}`)).body;
    assert.deepEqual(payments.map((p: any) => p.importe), [100, -100]);
    // The established system's clients send their form's own members too: that profile skips them here as everywhere.
    const legacy = (await t().call('POST', '/api/3/apikey', { description: 'legacy', fullaccess: true, enabled: true, profile: 'facturascripts' })).body.apikey;
    const lenient = await t().call('PUT', `/api/3/reciboclientes/${first.idrecibo}`, { observaciones: 'x', action: 'save', multireqtoken: 'abc' }, legacy);
    assert.equal(lenient.status, 200, JSON.stringify(lenient.body));
    assert.equal((await t().call('PATCH', `/api/3/recibocliente/${first.idrecibo}`, { observaciones: 'y', action: 'save' })).status, 422, 'the spec profile refuses them');
    assert.equal((await t().call('DELETE', `/api/3/recibocliente/${first.idrecibo}`)).status, 200);
    assert.equal(await state(), false, 'the paid receipt left covers 21 of 121');
  });

  it('answers payment errors: missing flag 400, unknown invoice 404, other methods 405', async () => {
    const invoice = (await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'SUP1', lineas: [{ descripcion: 'y', pvpunitario: 10 }] })).body.doc;
    assert.deepEqual((await t().call('POST', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`, { fechapago: '2026-01-01' })).body, { status: 'error', message: 'missing-pagada-parameter' });
    assert.equal((await t().call('POST', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`, { pagada: 'maybe' })).status, 422);
    assert.deepEqual((await t().call('POST', '/api/3/pagarFacturaProveedor/999999', { pagada: true })).body, { status: 'error', message: 'record-not-found' });
    assert.equal((await t().call('GET', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`)).status, 405);
    assert.equal((await t().call('POST', '/api/3/pagarFacturaProveedor', { pagada: true })).status, 404);
    const paid = await t().call('POST', `/api/3/pagarFacturaProveedor/${invoice.idfactura}`, { pagada: 'yes' });
    assert.deepEqual([paid.status, paid.body.data.pagada], [200, true]);
  });

  it('edits a delivery note: full line sync with stock (reference ApiEditDocumentTest 5)', async () => {
    const start = await stockOf(t());
    const note = (await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ referencia: 'STK', cantidad: 2 }] })).body;
    assert.equal(await stockOf(t()), start - 2);
    const idlinea = note.lines[0].idlinea;
    const first = await t().call('PUT', `/api/3/editarAlbaranCliente/${note.doc.idalbaran}`, { lineas: [{ idlinea, cantidad: 3 }, { referencia: 'STK', cantidad: 1 }] });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.lines.length, 2);
    assert.equal(await stockOf(t()), start - 4);
    assert.equal(first.body.doc.neto, 40);
    const second = await t().call('PATCH', `/api/3/editarAlbaranCliente/${note.doc.idalbaran}`, { lineas: `[{"idlinea":${idlinea},"cantidad":3}]` });
    assert.equal(second.body.lines.length, 1);
    assert.equal(await stockOf(t()), start - 3);
    assert.deepEqual([second.body.doc.neto, second.body.doc.total], [30, 36.3]);
  });

  it('keeps line irpf on edit and refuses changes of subject, company and warehouse (reference 6, 1-4, 7-8)', async () => {
    const note = (await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'free', cantidad: 1, pvpunitario: 100 }] })).body;
    const id = note.doc.idalbaran;
    const idlinea = note.lines[0].idlinea;
    const one = await t().call('PUT', `/api/3/editarAlbaranCliente/${id}`, { lineas: [{ idlinea, irpf: 15 }, { descripcion: 'new', cantidad: 1, pvpunitario: 100, irpf: 7 }] });
    assert.deepEqual([one.body.doc.irpf, one.body.doc.totalirpf, one.body.lines.map((l: any) => l.irpf)], [15, 22, [15, 7]]);
    const two = await t().call('PUT', `/api/3/editarAlbaranCliente/${id}`, { lineas: [{ idlinea, cantidad: 2 }] });
    assert.deepEqual([two.body.lines.length, two.body.lines[0].irpf, two.body.doc.totalirpf], [1, 15, 30]);
    await t().call('POST', '/api/3/cliente', { codcliente: 'OTHER', nombre: 'Other' });
    await t().call('POST', '/api/3/almacen', { codalmacen: 'SEC', nombre: 'Second' });
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ codcliente: 'OTHER', lineas: [] }, 'cannot-change-subject'],
      [{ idempresa: 2, lineas: [] }, 'cannot-change-company'],
      [{ codalmacen: 'SEC', lineas: [] }, 'cannot-change-warehouse'],
    ];
    for (const [body, code] of refusals) {
      const refused = await t().call('PUT', `/api/3/editarAlbaranCliente/${id}`, body);
      assert.deepEqual([refused.status, refused.body.message], [422, code]);
    }
    assert.equal((await t().call('GET', `/api/3/albarancliente/${id}`)).body.codcliente, 'BETA');
    assert.equal((await t().call('PUT', `/api/3/editarAlbaranCliente/${id}`, { codcliente: 'BETA', codalmacen: 'ALG' })).status, 200, 'same values are accepted');
    assert.equal((await t().call('PUT', '/api/3/editarFacturaCliente/99999999', { lineas: [] })).status, 404);
    assert.equal((await t().call('POST', `/api/3/editarAlbaranCliente/${id}`, { lineas: [] })).status, 405);
    assert.equal((await t().call('PUT', `/api/3/editarAlbaranCliente/${id}`, { lineas: '{"descripcion":"x"}' })).body.message, 'invalid-lines');
  });

  it('locks a non-editable document but for its unlocked fields (reference 9)', async () => {
    const note = (await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'a', pvpunitario: 10 }] })).body;
    const id = note.doc.idalbaran;
    const locked = await t().call('POST', '/api/3/estadodocumento', { tipodoc: 'AlbaranCliente', nombre: 'Cerrado', editable: false, actualizastock: 0 });
    assert.equal(locked.status, 201, JSON.stringify(locked.body));
    const moved = await t().call('PATCH', `/api/3/albarancliente/${id}`, { idestado: locked.body.idestado });
    assert.deepEqual([moved.status, moved.body.editable, moved.body.idestado_ant], [200, false, note.doc.idestado]);
    assert.deepEqual((await t().call('PUT', `/api/3/editarAlbaranCliente/${id}`, { lineas: [] })).body.message, 'document-not-editable');
    assert.equal((await t().call('PATCH', `/api/3/albarancliente/${id}`, { observaciones: 'no' })).status, 422);
    assert.equal((await t().call('POST', '/api/3/lineaalbarancliente', { idalbaran: id, descripcion: 'sneaky', pvpunitario: 5 })).body.message, 'document-not-editable');
    assert.equal((await t().call('PATCH', `/api/3/lineaalbarancliente/${note.lines[0].idlinea}`, { cantidad: 9 })).status, 422);
    const numdocs = await t().call('PUT', `/api/3/editarAlbaranCliente/${id}`, { numdocs: 3 });
    assert.deepEqual([numdocs.status, numdocs.body.doc.numdocs], [200, 3]);
    // Back to an editable status unlocks it, in the same request.
    const reopened = await t().call('PATCH', `/api/3/albarancliente/${id}`, { idestado: note.doc.idestado, observaciones: 'reopened' });
    assert.deepEqual([reopened.status, reopened.body.editable, reopened.body.observaciones], [200, true, 'reopened']);
  });

  it('recalculates totals when lines are written through the generic resources', async () => {
    const order = (await t().call('POST', '/api/3/crearPedidoCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'a', pvpunitario: 10 }] })).body;
    const id = order.doc.idpedido;
    const added = await t().call('POST', '/api/3/lineapedidocliente', { idpedido: id, descripcion: 'b', cantidad: 2, pvpunitario: 5 });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.deepEqual([added.body.pvptotal, added.body.iva], [10, 21]);
    assert.equal((await t().call('GET', `/api/3/pedidocliente/${id}`)).body.total, 24.2);
    await t().call('PATCH', `/api/3/lineapedidocliente/${added.body.idlinea}`, { cantidad: 4 });
    assert.equal((await t().call('GET', `/api/3/pedidocliente/${id}`)).body.total, 36.3);
    await t().call('DELETE', `/api/3/lineapedidocliente/${order.lines[0].idlinea}`);
    const after = (await t().call('GET', `/api/3/pedidocliente/${id}`)).body;
    assert.deepEqual([after.neto, after.total], [20, 24.2]);
    assert.equal((await t().call('PATCH', `/api/3/pedidocliente/${id}`, { total: 1 })).body.fields.total, 'read-only');
    const discounted = await t().call('PATCH', `/api/3/pedidocliente/${id}`, { dtopor1: 50 });
    assert.deepEqual([discounted.body.neto, discounted.body.netosindto, discounted.body.total], [10, 20, 12.1]);
    const created = await t().call('POST', '/api/3/presupuestocliente', { codcliente: 'BETA', observaciones: 'generic' });
    assert.deepEqual([created.status, created.body.total, created.body.codigo.startsWith('PRE')], [201, 0, true]);
  });

  it('generates an invoice from an approved delivery note, keeping stock, and restores the note when it is deleted', async () => {
    const start = await stockOf(t());
    const note = (await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BETA', lineas: [{ referencia: 'STK', cantidad: 4 }, { descripcion: 'service', pvpunitario: 50 }] })).body;
    assert.equal(await stockOf(t()), start - 4);
    const seen: string[] = [];
    const offs = [
      t().app.ctx.events.on('document.approved', (e) => void seen.push(`approved:${e.type}`)),
      t().app.ctx.events.on('document.created', (e) => void seen.push(`created:${e.type}`)),
    ];
    const approved = await t().call('PUT', `/api/3/albaranclientes/${note.doc.idalbaran}`, { idestado: 8 });
    for (const off of offs) off();
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.deepEqual([approved.body.idestado, approved.body.idestado_ant, approved.body.editable], [8, 7, false]);
    assert.deepEqual(seen, ['approved:AlbaranCliente', 'created:FacturaCliente']);
    const links = (await t().call('GET', `/api/3/doctransformation?filter[model1]=AlbaranCliente&filter[iddoc1]=${note.doc.idalbaran}`)).body;
    assert.equal(links.length, 2);
    const invoiceId = links[0].iddoc2;
    const invoice = (await t().call('GET', `/api/3/facturacliente/${invoiceId}`)).body;
    assert.deepEqual([invoice.neto, invoice.total, invoice.codcliente, invoice.idestado], [note.doc.neto, note.doc.total, 'BETA', 10]);
    const invoiceLines = (await t().call('GET', `/api/3/lineafacturacliente?filter[idfactura]=${invoiceId}`)).body;
    assert.deepEqual(invoiceLines.map((l: any) => [l.referencia, l.cantidad, l.actualizastock]), [['STK', 4, -1], [null, 1, -1]]);
    const noteLines = (await t().call('GET', `/api/3/lineaalbarancliente?filter[idalbaran]=${note.doc.idalbaran}`)).body;
    assert.deepEqual(noteLines.map((l: any) => [l.servido, l.actualizastock]), [[4, 0], [1, 0]]);
    assert.equal(await stockOf(t()), start - 4, 'the note released its stock and the invoice took it');
    assert.equal((await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoiceId}`)).body[0].importe, invoice.total);
    assert.equal((await t().call('DELETE', `/api/3/albarancliente/${note.doc.idalbaran}`)).body.message, 'document-has-children');

    assert.equal((await t().call('DELETE', `/api/3/facturacliente/${invoiceId}`)).status, 200);
    const restored = (await t().call('GET', `/api/3/albarancliente/${note.doc.idalbaran}`)).body;
    assert.deepEqual([restored.idestado, restored.editable], [7, true]);
    assert.equal(await stockOf(t()), start - 4);
    assert.equal((await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${invoiceId}`)).body.length, 0);
    assert.equal((await t().call('DELETE', `/api/3/albarancliente/${note.doc.idalbaran}`)).status, 200);
    assert.equal(await stockOf(t()), start, 'deleting the note gives the stock back');
  });

  it('approves a quote into an order, then the pending part only', async () => {
    const quote = (await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'BETA', lineas: [{ descripcion: 'a', pvpunitario: 100 }, { descripcion: 'b', cantidad: 2, pvpunitario: 50 }] })).body;
    const approved = await t().call('PATCH', `/api/3/presupuestocliente/${quote.doc.idpresupuesto}`, { idestado: 2 });
    assert.equal(approved.status, 200);
    const [link] = (await t().call('GET', `/api/3/doctransformation?filter[model1]=PresupuestoCliente&filter[iddoc1]=${quote.doc.idpresupuesto}`)).body;
    const order = (await t().call('GET', `/api/3/pedidocliente/${link.iddoc2}`)).body;
    assert.deepEqual([order.neto, order.total, order.idestado], [200, 242, 4]);
  });

  it('refunds part of a paid invoice with a negative rectificative invoice', async () => {
    const created = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', pagada: true, lineas: [{ referencia: 'STK', cantidad: 3 }, { descripcion: 'fee', pvpunitario: 20 }] })).body;
    const original = created.doc;
    const before = await stockOf(t());
    const refund = await t().call('POST', '/api/3/crearFacturaRectificativaCliente', {
      idfactura: original.idfactura, fecha: original.fecha, codserie: 'R', observaciones: 'damaged', [`refund_${created.lines[0].idlinea}`]: 1,
    });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    const { doc, lines } = refund.body;
    assert.deepEqual([doc.codigorect, doc.idfacturarect, doc.codserie, doc.observaciones], [original.codigo, original.idfactura, 'R', 'damaged']);
    assert.match(doc.codigo, /^F\d{4}R\d+$/);
    assert.deepEqual(lines.map((l: any) => [l.referencia, l.cantidad, l.idlinearect]), [['STK', -1, created.lines[0].idlinea]]);
    assert.deepEqual([doc.neto, doc.totaliva, doc.total, doc.pagada], [-10, -2.1, -12.1, true]);
    assert.equal(await stockOf(t()), before + 1, 'the refunded unit is back in stock');
    const locked = (await t().call('GET', `/api/3/facturacliente/${original.idfactura}`)).body;
    assert.deepEqual([locked.idestado, locked.editable], [11, false]);
    assert.equal((await t().call('DELETE', `/api/3/facturacliente/${original.idfactura}`)).body.message, 'document-not-editable');

    const again = await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: doc.idfactura, fecha: original.fecha });
    assert.deepEqual([again.status, again.body.message], [400, 'cant-refund-a-refund']);
    assert.equal((await t().call('GET', `/api/3/facturacliente?filter[idfacturarect]=${doc.idfactura}`)).body.length, 0);
    // A full refund takes back what is left: 2 of the first line (1 was refunded), all of the second.
    const full = await t().call('PUT', '/api/3/crearFacturaRectificativaCliente', { idfactura: original.idfactura, fecha: original.fecha });
    assert.deepEqual(full.body.lines.map((l: any) => l.cantidad), [-2, -1]);
    const nothingLeft = await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: original.idfactura, fecha: original.fecha });
    assert.deepEqual([nothingLeft.status, nothingLeft.body.fields], [422, { idfactura: 'already-refunded' }]);
    const tooMuch = await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: original.idfactura, fecha: original.fecha, [`refund_${created.lines[0].idlinea}`]: 1 });
    assert.deepEqual(tooMuch.body.fields, { [`refund_${created.lines[0].idlinea}`]: 'out-of-range' });
    assert.deepEqual((await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { fecha: original.fecha })).body.fields, { idfactura: 'required' });
    assert.equal((await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: 999999, fecha: original.fecha })).status, 404);
    assert.equal((await t().call('GET', '/api/3/crearFacturaRectificativaCliente')).status, 405);
  });

  it('dates receipts by the payment terms and customer payment days, and born-paid methods pay at once', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'DAYS', nombre: 'Payment days', diaspago: '1,15' });
    const cash = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'DAYS', codserie: 'S', fecha: '2026-03-10', lineas: [{ descripcion: 'a', pvpunitario: 10 }] })).body.doc;
    const [first] = (await t().call('GET', `/api/3/recibocliente?filter[idfactura]=${cash.idfactura}`)).body;
    assert.deepEqual([first.fecha, first.vencimiento, first.pagado], ['2026-03-10', '2026-03-15', false]);
    const transfer = (await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'SUP1', codpago: 'TRANS', fecha: '2026-01-31', lineas: [{ descripcion: 'b', pvpunitario: 10 }] })).body.doc;
    assert.equal((await t().call('GET', `/api/3/reciboproveedor?filter[idfactura]=${transfer.idfactura}`)).body[0].vencimiento, '2026-03-03');
    await t().call('POST', '/api/3/formapago', { codpago: 'PAID', descripcion: 'Paid at once', pagado: true });
    const paid = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'BETA', codserie: 'S', codpago: 'PAID', fecha: '2026-03-11', lineas: [{ descripcion: 'c', pvpunitario: 10 }] })).body.doc;
    assert.equal(paid.pagada, true);
    const [receipt] = (await t().call('GET', `/api/3/recibocliente?filter[idfactura]=${paid.idfactura}`)).body;
    assert.deepEqual([receipt.pagado, receipt.fechapago], [true, '2026-03-11']);
    assert.equal((await t().call('GET', `/api/3/pagocliente?filter[idrecibo]=${receipt.idrecibo}`)).body.length, 1);
  });
});
