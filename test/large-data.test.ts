import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { addLargeBooks, HEAVY_CUSTOMERS, largeCustomerCode } from '../bench/large-data.ts';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * The books `npm run seed:large` writes in bulk must be books the service can go on with: numbers
 * gap-free per series and year with dates rising with them, headers that add up to their lines,
 * the next invoice through the API following on without a repair scan, and a few customers with
 * many invoices.
 */
forEachEngine('large books in bulk', (t) => {
  let report: Awaited<ReturnType<typeof addLargeBooks>>;
  before(async () => {
    report = await addLargeBooks(t().app, { customers: 1200, invoices: 1000, years: 3 });
  });

  it('writes the customers, and invoices with lines in every series and year', async () => {
    const db = t().app.ctx.database.kysely;
    assert.deepEqual([report.customers, report.invoices, report.lines], [1200, 1000, 2000]);
    const customers = await db.selectFrom('clientes').select((eb) => eb.fn.countAll().as('n')).where('codcliente', 'like', 'L%').executeTakeFirstOrThrow();
    assert.equal(Number(customers.n), 1200);
    const blocks = await db.selectFrom('facturascli').select(['codserie', 'codejercicio']).select((eb) => eb.fn.countAll().as('n')).groupBy(['codserie', 'codejercicio']).execute();
    assert.equal(blocks.length, 6);
    for (const block of blocks) assert.ok(Math.abs(Number(block.n) - 1000 / 6) < 1, `${block.codserie} ${block.codejercicio}: ${block.n}`);
    // The heaviest customer has a tenth of the invoices shared among HEAVY_CUSTOMERS.
    const heavy = await db.selectFrom('facturascli').select((eb) => eb.fn.countAll().as('n')).where('codcliente', '=', largeCustomerCode(1)).executeTakeFirstOrThrow();
    assert.ok(Number(heavy.n) >= 1000 / 10 / HEAVY_CUSTOMERS, `customer 1 has ${heavy.n} invoices`);
  });

  it('numbers each series and year 1..n with dates that never go back, and headers that add up to their lines', async () => {
    const db = t().app.ctx.database.kysely;
    const rows = await db.selectFrom('facturascli').select(['idfactura', 'codserie', 'codejercicio', 'numero', 'codigo', 'fecha', 'neto']).execute();
    const bySeries = new Map<string, typeof rows>();
    for (const row of rows) bySeries.set(`${row.codserie}/${row.codejercicio}`, [...(bySeries.get(`${row.codserie}/${row.codejercicio}`) ?? []), row]);
    for (const [key, list] of bySeries) {
      list.sort((a, b) => Number(a.numero) - Number(b.numero));
      assert.deepEqual(list.map((row) => Number(row.numero)), list.map((_, i) => i + 1), key);
      for (let i = 1; i < list.length; i++) assert.ok(String(list[i]!.fecha) >= String(list[i - 1]!.fecha), `${key}: ${list[i]!.codigo} dated before ${list[i - 1]!.codigo}`);
      assert.equal(new Set(list.map((row) => row.codigo)).size, list.length);
      // The default pattern F{EJE}{SERIE}{NUM}, as the API writes it.
      for (const row of list) assert.equal(row.codigo, `F${row.codejercicio}${row.codserie}${row.numero}`);
    }
    const lines = await db.selectFrom('lineasfacturascli').select(['idfactura', 'pvptotal']).execute();
    const sums = new Map<number, number>();
    for (const line of lines) sums.set(Number(line.idfactura), (sums.get(Number(line.idfactura)) ?? 0) + Math.round(Number(line.pvptotal) * 100));
    for (const row of rows) assert.equal(sums.get(Number(row.idfactura)), Math.round(Number(row.neto) * 100), `invoice ${row.codigo}`);
  });

  it('lets the next invoice through the API follow on in its series, with no scan to repair the sequence', async () => {
    const db = t().app.ctx.database.kysely;
    const year = t().app.ctx.clock.today().date.slice(0, 4);
    const before = await db.selectFrom('facturascli').select((eb) => eb.fn.countAll().as('n')).where('codserie', '=', 'A').where('codejercicio', '=', year).executeTakeFirstOrThrow();
    const scans: string[] = [];
    const observer = (query: { sql: string }) => void (/order by/i.test(query.sql) && /numero/i.test(query.sql) && /facturascli/i.test(query.sql) && scans.push(query.sql));
    const { counter } = t().app.ctx.database;
    counter.observer = observer;
    try {
      const made = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: largeCustomerCode(7), lineas: [{ referencia: 'LARGE1', cantidad: 3 }] });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      assert.equal(Number(made.body.doc.numero), Number(before.n) + 1);
    } finally {
      counter.observer = undefined;
    }
    assert.deepEqual(scans, []);
    // A customer's invoices by date: a filtered, sorted page like any other.
    const page = await t().call('GET', `/api/3/facturacliente?filter[codcliente]=${largeCustomerCode(1)}&sort[fecha]=DESC&limit=5`);
    assert.equal(page.body.length, 5);
  });
});
