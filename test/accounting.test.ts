import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import { forEachEngine, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Accounting (issue 26, docs/accounting.md): the default chart, entries posted from invoices and
 * payments as the reference posts them (its worked examples), entries replaced and removed with
 * their documents, balances kept exact, and the trial balance.
 */

/** An entry line as compared: sub-account, debit, credit, base, VAT rate, surcharge rate, counterpart. */
type Line = [string, number, number, number, number, number, string | null];

async function entryOf(t: TestApp, idasiento: unknown): Promise<{ entry: any; lines: Line[] }> {
  assert.ok(typeof idasiento === 'number', `an entry id, got ${JSON.stringify(idasiento)}`);
  const entry = (await t.call('GET', `/api/3/asientos/${idasiento}`)).body;
  const rows = (await t.call('GET', `/api/3/partidas?filter[idasiento]=${idasiento}&sort[idpartida]=ASC&limit=100`)).body as any[];
  return { entry, lines: rows.map((row) => [row.codsubcuenta, row.debe, row.haber, row.baseimponible, row.iva, row.recargo, row.codcontrapartida]) };
}

async function create(t: TestApp, type: 'FacturaCliente' | 'FacturaProveedor', body: Record<string, unknown>) {
  const answer = await t.call('POST', `/api/3/crear${type}`, body);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

const C = '4300000001';
const P = '4000000001';

/** Every sub-account's stored balance equals the sums of its lines; accounts roll them up. */
async function assertBalancesExact(t: TestApp, codejercicio: string): Promise<void> {
  const trial = (await t.call('GET', `/api/3/balanceSumasSaldos?codejercicio=${codejercicio}`)).body;
  const cents = (n: number) => Math.round(n * 100);
  assert.equal(cents(trial.totales.debe), cents(trial.totales.haber), 'debits equal credits');
  assert.equal(trial.totales.saldo, 0);
  for (const line of trial.subcuentas) {
    const [stored] = (await t.call('GET', `/api/3/subcuentas?filter[codejercicio]=${codejercicio}&filter[codsubcuenta]=${line.codsubcuenta}`)).body;
    assert.deepEqual([cents(stored.debe), cents(stored.haber), cents(stored.saldo)], [cents(line.debe), cents(line.haber), cents(line.saldo)], line.codsubcuenta);
  }
  // The root accounts hold everything: group 4 (customers, suppliers, taxes) as the trial balance says.
  const group4 = trial.subcuentas.filter((line: any) => line.codsubcuenta.startsWith('4'));
  const [root] = (await t.call('GET', `/api/3/cuentas?filter[codejercicio]=${codejercicio}&filter[codcuenta]=4`)).body;
  assert.equal(cents(root.debe), group4.reduce((sum: number, line: any) => sum + cents(line.debe), 0));
  assert.equal(cents(root.haber), group4.reduce((sum: number, line: any) => sum + cents(line.haber), 0));
}

forEachEngine('accounting', (t) => {
  let year: string;
  before(async () => {
    year = String((await t().call('GET', '/api/3/ejercicios')).body[0].codejercicio);
    for (const [codcliente, extra] of [['1', {}], ['2', { regimeniva: 'Recargo' }]] as const) {
      assert.equal((await t().call('POST', '/api/3/clientes', { codcliente, nombre: `Cliente ${codcliente}`, cifnif: '12345678Z', ...extra })).status, 201);
    }
    assert.equal((await t().call('POST', '/api/3/proveedores', { codproveedor: '1', nombre: 'Proveedor 1', cifnif: '12345678Z' })).status, 201);
  });

  it('imports the Spanish chart into new installations, and a second import adds nothing', async () => {
    const [client] = (await t().call('GET', `/api/3/cuentas?filter[codejercicio]=${year}&filter[codcuenta]=430`)).body;
    assert.equal(client.codcuentaesp, 'CLIENT');
    assert.equal(client.parent_codcuenta, '43');
    const count = async (resource: string) => Number((await t().request({ method: 'GET', url: `/api/3/${resource}?filter[codejercicio]=${year}&limit=1` })).headers['x-total-count']);
    assert.deepEqual([await count('cuentas'), await count('subcuentas')], [915, 745]);
    const tax = (await t().call('GET', '/api/3/impuestos/IVA21')).body;
    assert.deepEqual([tax.codsubcuentarep, tax.codsubcuentasop, tax.codsubcuentarepintra, tax.codsubcuentasopintra], ['4770000021', '4720000021', '4771000021', '4721000021']);
    const again = await t().call('POST', '/api/3/importarPlanContable', { codejercicio: year });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { codejercicio: year, codpais: 'ESP', cuentas: 0, subcuentas: 0, cuentasesp: 0, impuestos: 0 });
    assert.equal((await t().call('POST', '/api/3/importarPlanContable', {})).status, 422);
    assert.equal((await t().call('POST', '/api/3/importarPlanContable', { codejercicio: 'NOPE' })).status, 404);
    assert.equal((await t().call('POST', '/api/3/importarPlanContable', { codejercicio: year, codpais: 'XYZ' })).body.fields.codpais, 'no-default-chart');
  });

  it('posts a sale: customer, VAT and sales lines, and creates the customer sub-account', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const { entry, lines } = await entryOf(t(), doc.idasiento);
    assert.deepEqual(lines, [[C, 121, 0, 0, 0, 0, null], ['4770000021', 0, 21, 100, 21, 0, C], ['7000000000', 0, 100, 0, 0, 0, C]]);
    assert.deepEqual([entry.concepto, entry.documento, entry.importe, entry.fecha, entry.codejercicio], [`Factura de Cliente ${doc.codigo} - Cliente 1`, doc.codigo, 121, doc.fecha, year]);
    assert.equal((await t().call('GET', '/api/3/clientes/1')).body.codsubcuenta, C);
  });

  it('posts several VAT rates, a 0 % group with its base, suplidos, surcharge and IRPF', async () => {
    let { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'a', pvpunitario: 100, codimpuesto: 'IVA21' }, { descripcion: 'b', pvpunitario: 50, codimpuesto: 'IVA10' }] });
    assert.deepEqual((await entryOf(t(), doc.idasiento)).lines, [[C, 176, 0, 0, 0, 0, null], ['4770000021', 0, 21, 100, 21, 0, C], ['4770000010', 0, 5, 50, 10, 0, C], ['7000000000', 0, 150, 0, 0, 0, C]]);
    ({ doc } = await create(t(), 'FacturaCliente', {
      codcliente: '1', lineas: [{ descripcion: 'a', pvpunitario: 50, codimpuesto: 'IVA0' }, { descripcion: 'b', pvpunitario: 100, codimpuesto: 'IVA21' }, { descripcion: 's', pvpunitario: 30, suplido: true }],
    }));
    assert.equal(doc.total, 201);
    assert.deepEqual((await entryOf(t(), doc.idasiento)).lines, [
      [C, 201, 0, 0, 0, 0, null], ['4770000000', 0, 0, 50, 0, 0, C], ['4770000021', 0, 21, 100, 21, 0, C], ['5550000000', 0, 30, 0, 0, 0, null], ['7000000000', 0, 150, 0, 0, 0, C],
    ]);
    ({ doc } = await create(t(), 'FacturaCliente', { codcliente: '2', lineas: [{ descripcion: 'a', pvpunitario: 200, codimpuesto: 'IVA21' }] }));
    assert.equal(doc.total, 252.4);
    const C2 = '4300000002';
    assert.deepEqual((await entryOf(t(), doc.idasiento)).lines, [[C2, 252.4, 0, 0, 0, 0, null], ['4770000021', 0, 42, 200, 21, 0, C2], ['4770000021', 0, 10.4, 200, 0, 5.2, C2], ['7000000000', 0, 200, 0, 0, 0, C2]]);
    ({ doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'a', pvpunitario: 1000, codimpuesto: 'IVA21', irpf: 15 }] }));
    assert.equal(doc.total, 1060);
    assert.deepEqual((await entryOf(t(), doc.idasiento)).lines, [[C, 1060, 0, 0, 0, 0, null], ['4770000021', 0, 210, 1000, 21, 0, C], ['4730000000', 150, 0, 0, 0, 0, C], ['7000000000', 0, 1000, 0, 0, 0, C]]);
  });

  it('posts purchases, with a product\'s own sub-account and the supplier\'s IRPF', async () => {
    let { doc } = await create(t(), 'FacturaProveedor', { codproveedor: '1', lineas: [{ descripcion: 'x', pvpunitario: 200, codimpuesto: 'IVA21' }] });
    assert.deepEqual((await entryOf(t(), doc.idasiento)).lines, [[P, 0, 242, 0, 0, 0, null], ['4720000021', 42, 0, 200, 21, 0, P], ['6000000000', 200, 0, 0, 0, 0, P]]);
    assert.match((await entryOf(t(), doc.idasiento)).entry.concepto, /^Factura de Proveedor FP/);
    ({ doc } = await create(t(), 'FacturaProveedor', { codproveedor: '1', lineas: [{ referencia: 'CONTA623', pvpunitario: 1000, irpf: 15 }] }));
    assert.deepEqual((await entryOf(t(), doc.idasiento)).lines, [[P, 0, 1060, 0, 0, 0, null], ['4720000021', 210, 0, 1000, 21, 0, P], ['4751000000', 0, 150, 0, 0, 0, P], ['6230000000', 1000, 0, 0, 0, 0, P]]);
  });

  it('self-assesses the VAT of an intra-community purchase: four lines, no ordinary VAT line', async () => {
    const { doc } = await create(t(), 'FacturaProveedor', { codproveedor: '1', operacion: 'intracomunitaria', lineas: [{ descripcion: 'eu', pvpunitario: 200, codimpuesto: 'IVA21' }] });
    assert.equal(doc.total, 200);
    assert.deepEqual((await entryOf(t(), doc.idasiento)).lines, [
      [P, 0, 200, 0, 0, 0, null], ['4721000021', 42, 0, 200, 21, 0, P], ['4771000021', 0, 42, 200, 21, 0, P], ['6000000000', 200, 0, 0, 0, 0, P],
    ]);
  });

  it('books a receipt\'s fees on payment and takes them back on un-payment', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const [receipt] = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${doc.idfactura}`)).body;
    assert.equal((await t().call('PATCH', `/api/3/reciboclientes/${receipt.idrecibo}`, { gastos: 5 })).status, 200);
    const lastPayment = async () => ((await t().call('GET', '/api/3/pagoclientes?sort[idpago]=DESC&limit=1')).body as any[])[0];
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${doc.idfactura}`, { pagada: true })).status, 200);
    const paid = await entryOf(t(), (await lastPayment()).idasiento);
    assert.deepEqual(paid.lines, [[C, 0, 121, 0, 0, 0, null], ['5720000000', 116, 0, 0, 0, 0, null], ['5720000000', 5, 0, 0, 0, 0, null]]);
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${doc.idfactura}`, { pagada: false })).status, 200);
    assert.deepEqual((await entryOf(t(), (await lastPayment()).idasiento)).lines, [[C, 121, 0, 0, 0, 0, null], ['5720000000', 0, 116, 0, 0, 0, null], ['5720000000', 0, 5, 0, 0, 0, null]]);
  });

  it('posts payments written through their own resource, and removes entries with deleted payments and receipts', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    const [receipt] = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${doc.idfactura}`)).body;
    const created = await t().call('POST', '/api/3/pagoclientes', { idrecibo: receipt.idrecibo, importe: 12.1, fecha: doc.fecha });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const stored = (await t().call('GET', `/api/3/pagoclientes/${created.body.idpago ?? created.body.data?.idpago}`)).body;
    assert.deepEqual((await entryOf(t(), stored.idasiento)).lines, [[C, 0, 12.1, 0, 0, 0, null], ['5720000000', 12.1, 0, 0, 0, 0, null]]);
    assert.equal((await t().call('DELETE', `/api/3/pagoclientes/${stored.idpago}`)).status, 200);
    assert.equal((await t().call('GET', `/api/3/asientos/${stored.idasiento}`)).status, 404);
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${doc.idfactura}`, { pagada: true })).status, 200);
    const [payment] = (await t().call('GET', `/api/3/pagoclientes?filter[idrecibo]=${receipt.idrecibo}`)).body;
    assert.equal(typeof payment.idasiento, 'number');
    assert.equal((await t().call('DELETE', `/api/3/reciboclientes/${receipt.idrecibo}`)).status, 200);
    assert.equal((await t().call('GET', `/api/3/asientos/${payment.idasiento}`)).status, 404);
  });

  it('mirrors a credit note on the returns account and keeps the original\'s entry', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const refund = await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: doc.idfactura, fecha: doc.fecha });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal(refund.body.doc.total, -121);
    assert.deepEqual((await entryOf(t(), refund.body.doc.idasiento)).lines, [[C, 0, 121, 0, 0, 0, null], ['4770000021', 21, 0, -100, 21, 0, C], ['7080000000', 100, 0, 0, 0, 0, C]]);
    assert.equal((await t().call('GET', `/api/3/asientos/${doc.idasiento}`)).status, 200);
  });

  it('posts each payment and its reversal in the payment date\'s year, keeping the first', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const paid = await t().call('POST', `/api/3/pagarFacturaCliente/${doc.idfactura}`, { pagada: true });
    assert.equal(paid.status, 200);
    const payments = async () => (await t().call('GET', `/api/3/pagoclientes?sort[idpago]=ASC&limit=1000`)).body as any[];
    const [payment] = (await payments()).slice(-1);
    const first = await entryOf(t(), payment.idasiento);
    assert.deepEqual(first.lines, [[C, 0, 121, 0, 0, 0, null], ['5720000000', 121, 0, 0, 0, 0, null]]);
    assert.equal(first.entry.concepto, `Cobro del recibo ${doc.codigo}-1 - Cliente 1`);
    assert.equal(first.entry.iddiario, null);
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${doc.idfactura}`, { pagada: false })).status, 200);
    const [reversal] = (await payments()).slice(-1);
    assert.equal(reversal.importe, -121);
    const second = await entryOf(t(), reversal.idasiento);
    assert.deepEqual(second.lines, [[C, 121, 0, 0, 0, 0, null], ['5720000000', 0, 121, 0, 0, 0, null]]);
    assert.match(second.entry.concepto, /^Devolución del recibo /);
    assert.equal((await t().call('GET', `/api/3/asientos/${payment.idasiento}`)).status, 200);
    // A receipt paid through its own resource records its payment and posts it too.
    const other = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'y', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    const [receipt] = (await t().call('GET', `/api/3/reciboclientes?filter[idfactura]=${other.doc.idfactura}`)).body;
    assert.equal((await t().call('PATCH', `/api/3/reciboclientes/${receipt.idrecibo}`, { pagado: true })).status, 200);
    const [direct] = (await payments()).slice(-1);
    assert.deepEqual([direct.idrecibo, direct.importe], [receipt.idrecibo, 12.1]);
    assert.deepEqual((await entryOf(t(), direct.idasiento)).lines, [[C, 0, 12.1, 0, 0, 0, null], ['5720000000', 12.1, 0, 0, 0, 0, null]]);
    assert.equal((await t().call('PATCH', `/api/3/reciboclientes/${receipt.idrecibo}`, { observaciones: 'no payment change' })).status, 200);
    assert.equal((await payments()).slice(-1)[0].idpago, direct.idpago, 'no movement without a change of pagado');
    // A supplier's payment mirrors it.
    const purchase = await create(t(), 'FacturaProveedor', { codproveedor: '1', pagada: true, lineas: [{ descripcion: 'x', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    const [supplierPayment] = ((await t().call('GET', `/api/3/pagoproveedores?sort[idpago]=DESC&limit=1`)).body as any[]);
    assert.equal(purchase.doc.pagada, true);
    assert.deepEqual((await entryOf(t(), supplierPayment.idasiento)).lines, [[P, 12.1, 0, 0, 0, 0, null], ['5720000000', 0, 12.1, 0, 0, 0, null]]);
  });

  it('posts nothing for a zero total, and posts once the total is no longer zero', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'free', pvpunitario: 0 }] });
    assert.equal(doc.idasiento, null);
    const edited = await t().call('PUT', `/api/3/editarFacturaCliente/${doc.idfactura}`, { lineas: [{ descripcion: 'paid', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual((await entryOf(t(), edited.body.doc.idasiento)).lines, [[C, 12.1, 0, 0, 0, 0, null], ['4770000021', 0, 2.1, 10, 21, 0, C], ['7000000000', 0, 10, 0, 0, 0, C]]);
  });

  it('replaces the entry when the total changes, keeps it on other edits', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const kept = await t().call('PUT', `/api/3/editarFacturaCliente/${doc.idfactura}`, { observaciones: 'a note' });
    assert.equal(kept.body.doc.idasiento, doc.idasiento);
    const old = (await entryOf(t(), doc.idasiento)).entry;
    const changed = await t().call('PUT', `/api/3/editarFacturaCliente/${doc.idfactura}`, { lineas: [{ descripcion: 'x', pvpunitario: 200, codimpuesto: 'IVA21' }] });
    assert.notEqual(changed.body.doc.idasiento, doc.idasiento);
    assert.equal((await t().call('GET', `/api/3/asientos/${doc.idasiento}`)).status, 404);
    const replaced = await entryOf(t(), changed.body.doc.idasiento);
    assert.ok(replaced.entry.numero > old.numero);
    assert.deepEqual(replaced.lines, [[C, 242, 0, 0, 0, 0, null], ['4770000021', 0, 42, 200, 21, 0, C], ['7000000000', 0, 200, 0, 0, 0, C]]);
    // A line written through its own resource changes the total too.
    const [line] = (await t().call('GET', `/api/3/lineafacturaclientes?filter[idfactura]=${doc.idfactura}`)).body;
    assert.equal((await t().call('PATCH', `/api/3/lineafacturaclientes/${line.idlinea}`, { pvpunitario: 300 })).status, 200);
    const after = (await t().call('GET', `/api/3/facturaclientes/${doc.idfactura}`)).body;
    assert.deepEqual((await entryOf(t(), after.idasiento)).lines[0], [C, 363, 0, 0, 0, 0, null]);
    // An entry deleted through its own resource leaves the invoice without one, not with a dangling id.
    assert.equal((await t().call('DELETE', `/api/3/asientos/${after.idasiento}`)).status, 200);
    assert.equal((await t().call('GET', `/api/3/facturaclientes/${doc.idfactura}`)).body.idasiento, null);
  });

  it('deletes an invoice with its payments\' entries and its own, and refuses inside a locked VAT settlement', async () => {
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', pagada: true, lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const [payment] = (await t().call('GET', `/api/3/pagoclientes?sort[idpago]=DESC&limit=1`)).body;
    assert.equal(typeof payment.idasiento, 'number');
    // The invoice's entry comes first, then its payment's.
    assert.ok((await entryOf(t(), payment.idasiento)).entry.numero > (await entryOf(t(), doc.idasiento)).entry.numero);
    assert.equal((await t().call('DELETE', `/api/3/facturaclientes/${doc.idfactura}`)).status, 200);
    for (const id of [doc.idasiento, payment.idasiento]) assert.equal((await t().call('GET', `/api/3/asientos/${id}`)).status, 404);

    const locked = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const settlement = await t().call('POST', '/api/3/regularizacionimpuestos', { codejercicio: year, periodo: 'T4', fechainicio: locked.doc.fecha, fechafin: locked.doc.fecha, bloquear: true });
    assert.equal(settlement.status, 201, JSON.stringify(settlement.body));
    // An invoice dated in a locked settlement is refused as such before its entry is asked (docs/tax-forms.md).
    const refused = await t().call('DELETE', `/api/3/facturaclientes/${locked.doc.idfactura}`);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.message ?? refused.body.error, 'period-locked');
    assert.equal((await t().call('GET', `/api/3/facturaclientes/${locked.doc.idfactura}`)).status, 200);
    const edit = await t().call('PUT', `/api/3/editarFacturaCliente/${locked.doc.idfactura}`, { lineas: [{ descripcion: 'x', pvpunitario: 1, codimpuesto: 'IVA21' }] });
    assert.deepEqual([edit.status, edit.body.message], [422, 'period-locked']);
    assert.equal((await t().call('DELETE', `/api/3/regularizacionimpuestos/${settlement.body.data?.idregiva ?? settlement.body.idregiva}`)).status, 200);
  });

  it('changes an entry\'s number under the year\'s entry counter, so that a new invoice still names its own entry', async () => {
    const first = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'x', pvpunitario: 100, codimpuesto: 'IVA21' }] });
    const renumber = () => t().call('PUT', `/api/3/asientos/${first.doc.idasiento}`, { numero: 999_999 });
    if (t().engine === 'sqlite') {
      assert.equal((await renumber()).status, 200);
    } else {
      // A writer holding the year's counter (a creation between its entry and its lines) is waited for.
      const { kysely, dialect } = t().app.ctx.database;
      let release!: () => void;
      let locked!: () => void;
      const taken = new Promise<void>((resolve) => (locked = resolve));
      const holder = kysely.transaction().execute(async (trx) => {
        await dialect.locking(trx.selectFrom('asientos_contadores').select('codejercicio').where('codejercicio', '=', year)).execute();
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await Promise.race([taken, holder]); // a holder that failed to lock ends the wait too
      let answered = false;
      const change = renumber().finally(() => (answered = true));
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(answered, false, 'the number waits for the counter');
      } finally {
        release();
        await holder;
      }
      assert.equal((await change).status, 200);
    }
    const next = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ descripcion: 'y', pvpunitario: 50, codimpuesto: 'IVA21' }] });
    assert.notEqual(next.doc.idasiento, first.doc.idasiento);
    assert.equal((await t().call('GET', `/api/3/facturaclientes/${next.doc.idfactura}`)).body.idasiento, next.doc.idasiento);
    const { entry, lines } = await entryOf(t(), next.doc.idasiento);
    assert.equal(entry.numero, 1_000_000, 'the year\'s highest + 1');
    assert.equal(lines.reduce((sum, line) => sum + Math.round(line[1] * 100), 0), 6050, 'its own lines, on its own entry');
    assert.equal((await entryOf(t(), first.doc.idasiento)).lines.reduce((sum, line) => sum + Math.round(line[1] * 100), 0), 12100);
  });

  it('saves the invoice without entry when a sub-account is missing, and says why', async () => {
    assert.equal((await t().call('POST', '/api/3/productos', { referencia: 'ODD', descripcion: 'odd', precio: 10, codsubcuentaven: '7059999999' })).status, 201);
    const answer = await create(t(), 'FacturaCliente', { codcliente: '1', lineas: [{ referencia: 'ODD' }] });
    assert.equal(answer.doc.idasiento, null);
    assert.deepEqual(answer.warnings.map((w: any) => [w.code, w.resource, w.id, w.codsubcuenta]), [['sales-subaccount-not-found', 'facturacliente', answer.doc.idfactura, '7059999999']]);
    const feed = (await t().call('GET', '/api/3/events?type=accounting.not-posted&latest=5')).body.events as any[];
    assert.ok(feed.some((event) => event.payload.id === answer.doc.idfactura && event.payload.code === 'sales-subaccount-not-found'), JSON.stringify(feed));
  });

  it('closes a year with a chart only once every invoice with a total has its entry', async () => {
    const closing = await t().call('PUT', `/api/3/ejercicios/${year}`, { estado: 'CERRADO' });
    assert.equal(closing.status, 422, JSON.stringify(closing.body));
    assert.equal(closing.body.fields.estado, 'invoices-without-entry');
    assert.ok(closing.body.invoices >= 1, 'the invoice saved without entry above');
    assert.equal((await t().call('GET', `/api/3/ejercicios/${year}`)).body.estado, 'ABIERTO');
  });

  it('keeps sub-account and account balances exact, and the trial balance agrees', async () => {
    await assertBalancesExact(t(), year);
    const trial = (await t().call('GET', `/api/3/balanceSumasSaldos?codejercicio=${year}&desde=2000-01-01&hasta=2000-01-02`)).body;
    assert.deepEqual(trial.subcuentas, []);
    assert.equal((await t().call('GET', '/api/3/balanceSumasSaldos')).status, 422);
    // The same as files: one row per sub-account and the totals.
    const full = (await t().call('GET', `/api/3/balanceSumasSaldos?codejercicio=${year}`)).body;
    const csv = await t().request({ method: 'GET', url: `/api/3/exportarBalanceSumasSaldos?codejercicio=${year}&type=csv` });
    assert.equal(csv.statusCode, 200);
    const rows = csv.body.replace(/^\uFEFF/, '').trim().split('\r\n').map((row) => row.split(';'));
    assert.deepEqual(rows[0], ['codsubcuenta', 'descripcion', 'codcuenta', 'debe', 'haber', 'saldo']);
    assert.equal(rows.length, full.subcuentas.length + 2);
    assert.deepEqual(rows.at(-1)!.slice(3).map(Number), [full.totales.debe, full.totales.haber, 0]);
    assert.deepEqual(rows[1]!.slice(3).map(Number), [full.subcuentas[0].debe, full.subcuentas[0].haber, full.subcuentas[0].saldo]);
    const xlsx = await t().request({ method: 'GET', url: `/api/3/exportarBalanceSumasSaldos?codejercicio=${year}&type=XLSX` });
    assert.equal(xlsx.statusCode, 200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.rawPayload as never);
    const sheet = workbook.worksheets[0]!;
    assert.equal(sheet.rowCount, full.subcuentas.length + 2);
    assert.equal(sheet.getRow(sheet.rowCount).getCell(4).value, full.totales.debe);
    assert.equal((await t().call('GET', `/api/3/exportarBalanceSumasSaldos?codejercicio=${year}&type=PDF`)).status, 400);
    assert.equal((await t().call('GET', '/api/3/balanceSumasSaldos?codejercicio=NOPE')).status, 404);
  });

  it('imports the chart into a year created by an invoice dated in it', async () => {
    const next = String(Number(year) + 1);
    const { doc } = await create(t(), 'FacturaCliente', { codcliente: '1', fecha: `${next}-01-15`, lineas: [{ descripcion: 'x', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    assert.notEqual(doc.codejercicio, year);
    const { entry, lines } = await entryOf(t(), doc.idasiento);
    assert.equal(entry.codejercicio, doc.codejercicio);
    assert.equal(entry.numero, 1);
    assert.deepEqual(lines[0], [C, 12.1, 0, 0, 0, 0, null]);
  });
});

/** An installation made before the setting existed keeps posting off in new years (no chart imported). */
describe('accounting setting', () => {
  it('imports nothing into new years while defaultplan is off, and posts nothing without a chart', async () => {
    const t = await startTestApp('sqlite');
    try {
      assert.equal((await t.call('PATCH', '/api/3/settings/default', { properties: { defaultplan: false } })).status, 200);
      assert.equal((await t.call('POST', '/api/3/clientes', { codcliente: '9', nombre: 'Nine' })).status, 201);
      const year = Number((await t.call('GET', '/api/3/ejercicios')).body[0].codejercicio) + 2;
      const { doc } = await create(t, 'FacturaCliente', { codcliente: '9', fecha: `${year}-03-01`, lineas: [{ descripcion: 'x', pvpunitario: 10 }] });
      assert.equal(doc.idasiento, null);
      assert.equal(Number((await t.request({ method: 'GET', url: `/api/3/subcuentas?filter[codejercicio]=${doc.codejercicio}&limit=1` })).headers['x-total-count']), 0);
    } finally {
      await t.close();
    }
  });
});

forEachEngine('accounting under concurrency', (t) => {
  it('numbers entries once and keeps the trial balance exact through 200 invoices and payments on two instances', async () => {
    const other: TestApp = await startTestApp(t().engine, { url: t().databaseUrl });
    try {
      const year = String((await t().call('GET', '/api/3/ejercicios')).body[0].codejercicio);
      const customers = Array.from({ length: 8 }, (_, i) => `K${i + 1}`);
      for (const codcliente of customers) assert.equal((await t().call('POST', '/api/3/clientes', { codcliente, nombre: codcliente })).status, 201);
      const suppliers = ['S1', 'S2'];
      for (const codproveedor of suppliers) assert.equal((await t().call('POST', '/api/3/proveedores', { codproveedor, nombre: codproveedor, cifnif: '12345678Z' })).status, 201);
      assert.equal((await t().call('POST', '/api/3/series', { codserie: 'Q', descripcion: 'Q' })).status, 201);
      // Sales in one series, purchases of two new suppliers in two series: the suppliers' first
      // postings race for their sub-accounts (no risk lock orders them, unlike customers').
      const answers = await Promise.all(Array.from({ length: 130 }, (_, i) => (i % 2 ? other : t()).call('POST', '/api/3/crearFacturaCliente', {
        codcliente: customers[i % customers.length], lineas: [{ descripcion: `c${i}`, cantidad: 1 + (i % 3), pvpunitario: 10.01 + i, codimpuesto: i % 2 ? 'IVA21' : 'IVA10' }],
      })).concat(Array.from({ length: 20 }, (_, i) => (i % 2 ? t() : other).call('POST', '/api/3/crearFacturaProveedor', {
        codproveedor: suppliers[i % 2], codserie: i % 4 < 2 ? 'A' : 'Q', lineas: [{ descripcion: `p${i}`, pvpunitario: 5 + i, codimpuesto: 'IVA21' }],
      }))));
      assert.deepEqual([...new Set(answers.map((a) => a.status))], [200], JSON.stringify(answers.find((a) => a.status !== 200)?.body));
      const pays = await Promise.all(answers.slice(0, 50).map((a, i) => (i % 2 ? t() : other).call('POST', `/api/3/pagarFacturaCliente/${a.body.doc.idfactura}`, { pagada: true })));
      assert.deepEqual([...new Set(pays.map((a) => a.status))], [200], JSON.stringify(pays.find((a) => a.status !== 200)?.body));
      const entries = (await t().call('GET', `/api/3/asientos?filter[codejercicio]=${year}&limit=1000`)).body as any[];
      assert.equal(entries.length, 200);
      assert.deepEqual(entries.map((e) => e.numero).sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => i + 1), 'gap-free, none twice');
      assert.ok(answers.every((a) => typeof a.body.doc.idasiento === 'number'));
      await assertBalancesExact(t(), year);
      // Each customer got one sub-account, stored back.
      const subs = (await t().call('GET', `/api/3/subcuentas?filter[codejercicio]=${year}&filter[codcuenta]=430&limit=100`)).body as any[];
      assert.equal(subs.length, customers.length);
      const supplierSubs = (await t().call('GET', `/api/3/subcuentas?filter[codejercicio]=${year}&filter[codcuenta]=400&limit=100`)).body as any[];
      assert.deepEqual(supplierSubs.map((sub) => sub.codsubcuenta).filter((code) => code !== '4000000000').sort(), ['4000000001', '4000000002']);
      for (const [i, codproveedor] of suppliers.entries()) {
        assert.equal((await t().call('GET', `/api/3/proveedores/${codproveedor}`)).body.codsubcuenta, `400000000${i + 1}`);
      }
    } finally {
      await other.close();
    }
  });
}, { engines: ['postgres', 'mysql'] });
