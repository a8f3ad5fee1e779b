import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { reachedRisk } from '../src/modules/documents/customer-risk.ts';
import { forEachEngine, withOtherInstance, type TestApp } from './helpers/test-app.ts';
import { assertChained, recordsOf, switchOn } from './helpers/verifactu.ts';

/**
 * Every document write takes the shared locks in one order (docs/performance.md): the sequence,
 * the customer, the document, the stock rows by reference, the year's entry counter, the fiscal
 * chain. Two instances on one PostgreSQL or MariaDB database run creations, payments and un-payments,
 * edits (an invoice's notes, a delivery note's lines) and refunds at once, on shared customers and
 * products, with VERI*FACTU on: no transaction is run again after a deadlock, and the books hold:
 * numbers without gaps, one unbroken chain, stock equal to what the lines moved, each customer's
 * risk as counted again, each sub-account's balance equal to its entry lines.
 */
const CUSTOMERS = ['L1', 'L2', 'L3'];
const PRODUCTS = ['LP1', 'LP2', 'LP3', 'LP4'];
// Three series: creations of one serie wait for each other on its number; across series only the
// later locks (customer, stock, entries, chain) order them, which is what the test is about.
const SERIES = ['W1', 'W2', 'W3'];

forEachEngine('write locks in one order', (t) => {
  it('mixes creations, payments, edits and refunds across two instances without a deadlock', async () => {
    await withOtherInstance(t(), (other) => mixedWrites(t(), other));
  });
}, { engines: ['postgres', 'mysql'] });

async function mixedWrites(t: TestApp, other: TestApp): Promise<void> {
  await switchOn(t);
  for (const codcliente of CUSTOMERS) assert.equal((await t.call('POST', '/api/3/cliente', { codcliente, nombre: codcliente, cifnif: '12345678Z' })).status, 201);
  for (const codserie of SERIES) assert.equal((await t.call('POST', '/api/3/serie', { codserie, descripcion: codserie })).status, 201);
  for (const [index, referencia] of PRODUCTS.entries()) {
    assert.equal((await t.call('POST', '/api/3/producto', { referencia, precio: 10 + index, ventasinstock: true })).status, 201);
  }
  const lines = (i: number) => [{ referencia: PRODUCTS[i % 4], cantidad: 1 + (i % 3) }, { referencia: PRODUCTS[(i + 1) % 4], cantidad: 2 }, { referencia: PRODUCTS[(i + 3) % 4], cantidad: 1 }];
  // What the concurrent writes work on: invoices to pay and refund, delivery notes to edit (one of
  // each per customer, written one at a time).
  const invoices: number[] = [];
  // The business day of each invoice (the installation's time zone, not UTC): its refund's date.
  const dates: string[] = [];
  const notes: Array<{ id: number; idlinea: number }> = [];
  for (const [i, codcliente] of [...CUSTOMERS, ...CUSTOMERS].entries()) {
    const invoice = await t.call('POST', '/api/3/crearFacturaCliente', { codcliente, lineas: lines(i) });
    assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
    invoices.push(invoice.body.doc.idfactura);
    dates.push(invoice.body.doc.fecha);
  }
  for (const [i, codcliente] of CUSTOMERS.entries()) {
    const note = await t.call('POST', '/api/3/crearAlbaranCliente', { codcliente, lineas: lines(i) });
    assert.equal(note.status, 200, JSON.stringify(note.body));
    notes.push({ id: note.body.doc.idalbaran, idlinea: note.body.lines[0].idlinea });
  }
  for (const app of [t, other]) app.app.ctx.database.counter.retries = 0;

  const writes: Array<() => Promise<{ status: number; body: any }>> = [];
  for (let i = 0; i < 24; i++) {
    const app = i % 2 ? other : t;
    writes.push(() => app.call('POST', '/api/3/crearFacturaCliente', { codcliente: CUSTOMERS[i % 3], codserie: SERIES[Math.floor(i / 3) % 3], lineas: lines(i) }));
    if (i < 6) {
      const invoice = invoices[i]!;
      // Paid, and for three of them un-paid again, from the other instance.
      writes.push(() => app.call('POST', `/api/3/pagarFacturaCliente/${invoice}`, { pagada: true }).then(async (paid) => (i < 3 ? (i % 2 ? t : other).call('POST', `/api/3/pagarFacturaCliente/${invoice}`, { pagada: false }) : paid)));
    }
    if (i >= 3 && i < 6) {
      const idfactura = invoices[i]!;
      const fecha = dates[i]!;
      writes.push(() => (i % 2 ? t : other).call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura, fecha }));
    }
    if (i < 3) {
      const note = notes[i]!;
      writes.push(() => app.call('PUT', `/api/3/editarAlbaranCliente/${note.id}`, { lineas: [{ idlinea: note.idlinea, cantidad: 4 + i }, { referencia: PRODUCTS[(i + 2) % 4], cantidad: 1 }] }));
      writes.push(() => app.call('PATCH', `/api/3/editarFacturaCliente/${invoices[i]}`, { observaciones: `edited ${i}` }));
    }
  }
  const answers = await Promise.all(writes.map((write) => write()));
  for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.deepEqual([t.app.ctx.database.counter.retries, other.app.ctx.database.counter.retries], [0, 0], 'no transaction ran again after a deadlock');

  const db = t.app.ctx.database.kysely;
  // Numbers without gaps, per serie and exercise.
  for (const table of ['facturascli', 'albaranescli']) {
    const rows = await db.selectFrom(table).select(['codserie', 'codejercicio', 'numero']).execute();
    const groups = new Map<string, number[]>();
    for (const row of rows) groups.set(`${row.codserie}/${row.codejercicio}`, [...(groups.get(`${row.codserie}/${row.codejercicio}`) ?? []), Number(row.numero)]);
    for (const [group, numbers] of groups) assert.deepEqual(numbers.sort((a, b) => a - b), numbers.map((_, index) => index + 1), `${table} ${group}`);
  }
  const records = await recordsOf(t);
  assertChained(records);
  const invoiceCount = await db.selectFrom('facturascli').select(sql<number>`COUNT(*)`.as('n')).executeTakeFirst();
  assert.equal(records.length, Number(invoiceCount?.n), 'one record per invoice');
  // Stock: what every stored line moved (its stock mode times its quantity).
  for (const referencia of PRODUCTS) {
    let moved = 0;
    for (const table of ['lineasfacturascli', 'lineasalbaranescli']) {
      const row = await db.selectFrom(table).select(sql<number>`COALESCE(SUM(actualizastock * cantidad), 0)`.as('moved')).where('referencia', '=', referencia).executeTakeFirst();
      moved += Number(row?.moved ?? 0);
    }
    const stock = await db.selectFrom('stocks').select('cantidad').where('referencia', '=', referencia).execute();
    assert.equal(stock.reduce((sum, row) => sum + Number(row.cantidad), 0), moved, `stock of ${referencia}`);
    const product = await db.selectFrom('productos').select('stockfis').where('referencia', '=', referencia).executeTakeFirst();
    assert.equal(Number(product?.stockfis), moved, `stockfis of ${referencia}`);
  }
  // Each customer's risk, as counted again over its documents.
  for (const codcliente of CUSTOMERS) {
    const row = await db.selectFrom('clientes').select(['riesgoalcanzado', reachedRisk(t.app.ctx.database.dialect, codcliente, 2).as('counted')]).where('codcliente', '=', codcliente).executeTakeFirst();
    assert.equal(Number(row?.riesgoalcanzado), Number(row?.counted), `risk of ${codcliente}`);
  }
  // Each sub-account's balance is its entry lines'; the top accounts hold them all.
  const subaccounts = await db.selectFrom('subcuentas as s')
    .select(['s.codsubcuenta', 's.debe', 's.haber', sql<number>`(SELECT COALESCE(SUM(p.debe), 0) FROM partidas p WHERE p.idsubcuenta = s.idsubcuenta)`.as('lined'), sql<number>`(SELECT COALESCE(SUM(p.haber), 0) FROM partidas p WHERE p.idsubcuenta = s.idsubcuenta)`.as('linedh')])
    .execute();
  for (const sub of subaccounts) assert.deepEqual([round(sub.debe), round(sub.haber)], [round(sub.lined), round(sub.linedh)], `balance of ${sub.codsubcuenta}`);
  const sums = sql<number>`COALESCE(SUM(debe), 0)`.as('debe');
  const top = await db.selectFrom('cuentas').select([sums, sql<number>`COALESCE(SUM(haber), 0)`.as('haber')]).where('parent_idcuenta', 'is', null).executeTakeFirst();
  const all = await db.selectFrom('partidas').select([sums, sql<number>`COALESCE(SUM(haber), 0)`.as('haber')]).executeTakeFirst();
  assert.deepEqual([round(top?.debe), round(top?.haber)], [round(all?.debe), round(all?.haber)], 'the top accounts hold every entry line');
}

const round = (value: unknown) => Math.round(Number(value ?? 0) * 100) / 100;
