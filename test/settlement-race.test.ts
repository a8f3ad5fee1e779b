import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { before, it } from 'node:test';
import { documentChanged, documentPreparing } from '../src/modules/documents/index.ts';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * A VAT settlement and the invoices written while it runs (docs/tax-forms.md, "Settling"): an
 * invoice whose VAT falls in the period is either counted by the settlement or refused as
 * `period-locked`; none lands in a settled period that did not count it. The creation is held
 * between its locks' read and its header's insert, the widest window there is, while the
 * settlement runs.
 */
const offset = Date.parse('2027-02-10T10:00:00Z') - Date.now();
const clock = { now: () => Date.now() + offset };

/** Creates an invoice held once its locks' read is answered (rounds apart), settles `periodo` meanwhile, then lets it go. */
async function settleWhileCreating(t: TestApp, fecha: string, codejercicio: string, periodo: string) {
  const mark = `held ${fecha}`;
  let reached!: () => void;
  const atRead = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  t.app.ctx.hooks.on(documentPreparing, async ({ header }) => header.observaciones !== mark ? undefined : () => ({
    lockAndWrite(doc) {
      doc.together = false;
    },
    async afterLocks() {
      reached();
      await gate;
    },
  }));
  const creating = t.call('POST', '/api/3/crearFacturaCliente', {
    codcliente: 'R1', fecha, observaciones: mark, lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }],
  });
  await atRead;
  const settling = t.call('POST', '/api/3/liquidarIVA', { codejercicio, periodo });
  const first = await Promise.race([settling.then(() => 'settled'), delay(t.engine === 'sqlite' ? 500 : 10_000).then(() => 'waiting')]);
  release();
  const [created, settled] = await Promise.all([creating, settling]);
  assert.equal(settled.status, 200, JSON.stringify(settled.body));
  const written = (await t.call('GET', `/api/3/facturacliente?filter[observaciones]=${encodeURIComponent(mark)}`)).body;
  // Whatever happened, the books agree with what was settled, and the invoice is there only if it was counted.
  const now = await t.call('GET', `/api/3/modelo303?codejercicio=${codejercicio}&periodo=${periodo}`);
  const boxes = (casillas: Record<string, number>) => [casillas['07'], casillas['09']];
  assert.deepEqual(boxes(now.body.casillas), boxes(settled.body.casillas));
  assert.equal(written.length, created.status === 200 ? 1 : 0);
  return { first, created, boxes: boxes(settled.body.casillas) };
}

forEachEngine('a VAT settlement and the invoices written meanwhile', (t) => {
  before(async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'R1', nombre: 'Cliente', cifnif: '12345678Z' })).status, 201);
    const year = await t().call('POST', '/api/3/ejercicio', { codejercicio: '2026', nombre: '2026', fechainicio: '2026-01-01', fechafin: '2026-12-31' });
    assert.equal(year.status, 201, JSON.stringify(year.body));
  });

  it('waits for an invoice being posted in the period, and counts it', async () => {
    // Its entry's counter and insert (which shares the company's row) come before its locks' read.
    const { first, created, boxes } = await settleWhileCreating(t(), '2026-08-20', '2026', '3T');
    assert.equal(first, 'waiting');
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.ok(created.body.doc.idasiento, 'posted');
    assert.deepEqual(boxes, [100, 21], 'the settlement counted it');
  });

  it('refuses an invoice of the period that is not posted and was held while the settlement committed (one writer: counted)', async () => {
    // A year without a chart: no entry, so nothing of the creation touches the company's row before its header.
    assert.equal((await t().call('PATCH', '/api/3/settings/default', { properties: { defaultplan: false } })).status, 200);
    const year = await t().call('POST', '/api/3/ejercicio', { codejercicio: '2025', nombre: '2025', fechainicio: '2025-01-01', fechafin: '2025-12-31' });
    assert.equal(year.status, 201, JSON.stringify(year.body));
    // A first invoice of the year (in 3T) makes its number sequence, whose insert would share the company's row too.
    const warm = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'R1', fecha: '2025-08-10', lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 50, codimpuesto: 'IVA21' }] });
    assert.equal(warm.status, 200, JSON.stringify(warm.body));
    assert.equal(warm.body.doc.idasiento, null, 'not posted: no chart');
    const { first, created, boxes } = await settleWhileCreating(t(), '2025-11-20', '2025', '4T');
    if (t().engine === 'sqlite') {
      // SQLite has one writer: the settlement waits for the creation.
      assert.equal(first, 'waiting');
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.deepEqual(boxes, [100, 21], 'the settlement counted it');
    } else {
      // Nothing the held creation holds stops the settlement, which commits first: the creation then finds the period locked.
      assert.equal(first, 'settled');
      assert.deepEqual([created.status, created.body.message, created.body.fecha], [422, 'period-locked', '2025-11-20'], JSON.stringify(created.body));
      assert.deepEqual(boxes, [0, 0]);
    }
  });

  it('waits for a change of an invoice of the period, and counts the invoice as changed', async () => {
    // A year without a chart (defaultplan is off since the test above): the change posts nothing, takes no entry counter.
    assert.equal((await t().call('POST', '/api/3/ejercicio', { codejercicio: '2024', nombre: '2024', fechainicio: '2024-01-01', fechafin: '2024-12-31' })).status, 201);
    const invoice = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'R1', fecha: '2024-11-05', observaciones: 'edited', lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }] });
    assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
    // The change is held once written, before its commit.
    let reached!: () => void;
    const changed = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    t().app.ctx.hooks.on(documentChanged, async ({ after }) => {
      if (after.observaciones !== 'edited') return;
      reached();
      await gate;
    });
    const editing = t().call('PUT', `/api/3/editarFacturaCliente/${invoice.body.doc.idfactura}`, { lineas: [{ descripcion: 'Venta', cantidad: 3, pvpunitario: 100, codimpuesto: 'IVA21' }] });
    await changed;
    const settling = t().call('POST', '/api/3/liquidarIVA', { codejercicio: '2024', periodo: '4T' });
    const first = await Promise.race([settling.then(() => 'settled'), delay(t().engine === 'sqlite' ? 500 : 10_000).then(() => 'waiting')]);
    release();
    const [edited, settled] = await Promise.all([editing, settling]);
    assert.equal(first, 'waiting', 'the settlement waits for the change');
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(settled.status, 200, JSON.stringify(settled.body));
    assert.deepEqual([settled.body.casillas['07'], settled.body.casillas['09']], [300, 63], 'the invoice as changed');
    // And it is now sealed by the settlement.
    const again = await t().call('PUT', `/api/3/editarFacturaCliente/${invoice.body.doc.idfactura}`, { lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }] });
    assert.deepEqual([again.status, again.body.message], [422, 'period-locked'], JSON.stringify(again.body));
  });
}, { clock });
