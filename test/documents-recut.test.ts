import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from './helpers/test-app.ts';

/** Regressions found in review of the document engine's re-cut (batched writes, caches, receipts). */
const instant = { ms: Date.parse('2026-03-10T10:00:00Z') };

forEachEngine('document engine: batched writes, caches and receipts', (t) => {
  before(async () => {
    instant.ms = Date.parse('2026-03-10T10:00:00Z');
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'RC', nombre: 'Re-cut' })).status, 201);
  });

  it('creates a document with more lines than one statement may bind', async () => {
    const lineas = Array.from({ length: 1700 }, (_, i) => ({ descripcion: `line ${i}`, cantidad: 1, pvpunitario: 1 }));
    const answer = await t().call('POST', '/api/3/crearPedidoCliente', { codcliente: 'RC', lineas });
    assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
    assert.equal(answer.body.lines.length, 1700);
    assert.equal(answer.body.doc.neto, 1700);
    assert.equal(new Set(answer.body.lines.map((line: { idlinea: number }) => line.idlinea)).size, 1700);
  });

  it('announces every new line with its id', async () => {
    const saved: Array<Record<string, unknown>> = [];
    const off = t().app.ctx.events.on('model.save', (event) => {
      if (event.model === 'lineafacturacliente') saved.push(event.record);
    });
    try {
      const answer = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'RC', lineas: [{ descripcion: 'a', pvpunitario: 1 }, { descripcion: 'b', pvpunitario: 2 }] });
      assert.equal(answer.status, 200);
      assert.deepEqual(saved.map((record) => record.idlinea), answer.body.lines.map((line: { idlinea: number }) => line.idlinea));
      assert.deepEqual(saved.map((record) => record.descripcion), ['a', 'b']);
    } finally {
      off();
    }
  });

  it('keeps each receipt its own overdue flag, whatever numbers receipts share', async () => {
    const invoice = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'RC', lineas: [{ descripcion: 'x', pvpunitario: 100 }] })).body.doc;
    // A second receipt, paid, added by hand with the same number as the first.
    const extra = await t().call('POST', '/api/3/recibocliente', {
      idfactura: invoice.idfactura, codcliente: 'RC', coddivisa: 'EUR', codpago: 'CONT', fecha: invoice.fecha, vencimiento: invoice.fecha,
      importe: 10, numero: 1, pagado: true, idempresa: 1, codigofactura: invoice.codigo,
    });
    assert.equal(extra.status, 201, JSON.stringify(extra.body));
    instant.ms = Date.parse('2026-05-01T10:00:00Z');
    assert.equal((await t().call('PUT', `/api/3/editarFacturaCliente/${invoice.idfactura}`, { observaciones: 'later' })).status, 200);
    const receipts = (await t().call('GET', `/api/3/recibocliente?filter[idfactura]=${invoice.idfactura}&sort[idrecibo]=ASC`)).body;
    assert.deepEqual(receipts.map((r: { pagado: boolean; vencido: boolean }) => [r.pagado, r.vencido]), [[false, true], [true, false]]);
    instant.ms = Date.parse('2026-03-10T10:00:00Z');
  });

  it('follows a renamed province in the tax zones at once', async () => {
    const province = (await t().call('POST', '/api/3/provincia', { codpais: 'ESP', provincia: 'Vieja' })).body;
    assert.equal((await t().call('POST', '/api/3/impuestozona', { codimpuesto: 'IVA21', codimpuestosel: 'IVA0', codpais: 'ESP', codisopro: String(province.idprovincia) })).status, 201);
    // A first invoice loads the taxes (and the zone's province name) into the cache.
    const before = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'RC', codpais: 'ESP', provincia: 'Vieja', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    assert.equal(before.body.doc.total, 100);
    assert.equal((await t().call('PATCH', `/api/3/provincia/${province.idprovincia}`, { provincia: 'Nueva' })).status, 200);
    const invoice = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'RC', codpais: 'ESP', provincia: 'Nueva', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
    assert.deepEqual([invoice.body.lines[0].codimpuesto, invoice.body.doc.total], ['IVA0', 100]);
  });
}, { clock: { now: () => instant.ms } });
