import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { before, it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * SEPA direct-debit remittances (docs/banking.md) on every engine: receipts gathered by payment
 * method, account, company and due date; those without IBAN or mandate listed with the reason;
 * pain.008 files of both versions valid against the vendored ISO 20022 schemas (xmllint), with the
 * creditor identifier, counts and sums to the cent over 200 receipts; bad input refused by name.
 */
const SCHEMAS = path.resolve(import.meta.dirname, 'vendor/sepa');

function assertValid(xml: string, schema: string): void {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(SCHEMAS, `${schema}.xsd`), '-'], { input: xml, encoding: 'utf8' });
  assert.equal(run.status, 0, `${schema}: ${run.stderr}\n${xml.slice(0, 3000)}`);
  assert.match(run.stderr, /- validates/);
}
const assertValidPain008 = (xml: string, version: string) => assertValid(xml, `pain.008.${version}`);

const TODAY = '2026-11-27';
const offset = Date.parse(`${TODAY}T10:00:00Z`) - Date.now();
const clock = { now: () => Date.now() + offset };
const tag = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((match) => match[1]);

async function invoice(t: TestApp, codcliente: string, price: number): Promise<void> {
  const answer = await t.call('POST', '/api/3/crearFacturaCliente', { codcliente, codpago: 'DOMI', lineas: [{ descripcion: 'Cuota', cantidad: 1, pvpunitario: price, codimpuesto: 'IVA0' }] });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

forEachEngine('SEPA direct-debit remittances', (t) => {
  before(async () => {
    assert.equal((await t().call('PATCH', '/api/3/empresa/1', { cifnif: 'B85626240', nombre: 'Acme Ñandú & Cía, S.L.' })).status, 200);
    const account = await t().call('POST', '/api/3/cuentabanco', { codcuenta: 'CB1', descripcion: 'Cobros', iban: 'ES91 2100 0418 4502 0005 1332', swift: 'CAIXESBBXXX', idempresa: 1, sufijosepa: '000' });
    assert.equal(account.status, 201, JSON.stringify(account.body));
    assert.equal((await t().call('POST', '/api/3/formapago', { codpago: 'DOMI', descripcion: 'Domiciliación', domiciliado: true, codcuentabanco: 'CB1' })).status, 201);
    for (const [codcliente, nombre] of [['DD1', 'José Pérez Ibáñez'], ['DD2', 'Sin Mandato'], ['DD3', 'Sin Cuenta']]) {
      assert.equal((await t().call('POST', '/api/3/cliente', { codcliente, nombre, cifnif: '12345678Z', codpago: 'DOMI' })).status, 201);
    }
    assert.equal((await t().call('POST', '/api/3/cuentabancocliente', { codcliente: 'DD1', iban: 'ES7921000813610123456789', mandato: 'MAND-DD1', fmandato: '2025-03-01' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/cuentabancocliente', { codcliente: 'DD2', iban: 'ES7921000813610123456789' })).status, 201);
  });

  it('gathers the due direct-debit receipts, lists those it cannot collect, and writes a pain.008 of each version that validates', async () => {
    const prices = Array.from({ length: 200 }, (_, i) => Math.round((1.07 + i * 3.13) * 100) / 100);
    for (const price of prices) await invoice(t(), 'DD1', price);
    await invoice(t(), 'DD2', 50);
    await invoice(t(), 'DD3', 60);
    const built = await t().call('POST', '/api/3/remesasepa', { codcuenta: 'CB1', fechacargo: '2026-12-02', version: '001.08' });
    assert.equal(built.status, 201, JSON.stringify(built.body).slice(0, 500));
    assert.equal(built.body.numrecibos, 200);
    assert.equal(built.body.recibos.length, 200);
    const expected = prices.reduce((sum, price) => sum + Math.round(price * 100), 0) / 100;
    assert.equal(built.body.total, expected, 'the sum to the cent');
    assert.equal(built.body.identificador, 'ES77000B85626240');
    assert.deepEqual(built.body.excluidos.map((row: any) => [row.codcliente, row.motivo]).sort(), [['DD2', 'no-mandate'], ['DD3', 'no-bank-account']]);
    assert.deepEqual([...new Set(built.body.recibos.map((row: any) => row.secuencia))].sort(), ['FRST', 'RCUR']);
    assert.equal(built.body.recibos.filter((row: any) => row.secuencia === 'FRST').length, 1, 'the mandate\'s first collection only');
    assert.equal(built.body.estado, 'borrador');

    for (const version of ['001.08', '001.02']) {
      if (version === '001.02') assert.equal((await t().call('PATCH', `/api/3/remesasepa/${built.body.idremesa}`, { version })).status, 200);
      const file = await t().request({ method: 'GET', url: `/api/3/remesasepa/${built.body.idremesa}/xml` });
      assert.equal(file.statusCode, 200);
      assert.match(String(file.headers['content-disposition']), new RegExp(`pain\\.008\\.${version.replace('.', '\\.')}\\.xml`));
      assertValidPain008(file.body, version);
      assert.deepEqual(tag(file.body, 'NbOfTxs'), ['200', '1', '199']);
      assert.equal(tag(file.body, 'CtrlSum')[0], expected.toFixed(2));
      const blocks = tag(file.body, 'CtrlSum').slice(1).map(Number);
      assert.equal(Math.round((blocks[0]! + blocks[1]!) * 100), Math.round(expected * 100));
      assert.deepEqual([...new Set(tag(file.body, 'Id').filter((id) => id!.startsWith('ES77')))], ['ES77000B85626240']);
      assert.match(file.body, /<Nm>Acme Nandu \+ Cia, S\.L\.<\/Nm>/, 'the SEPA character set');
      assert.match(file.body, /<Nm>Jose Perez Ibanez<\/Nm>/);
      assert.match(file.body, version === '001.02' ? /<BIC>CAIXESBBXXX<\/BIC>/ : /<BICFI>CAIXESBBXXX<\/BICFI>/);
      assert.match(file.body, /<Othr>\s*<Id>NOTPROVIDED<\/Id>/, 'a debtor bank without BIC');
      assert.match(file.body, /<MndtId>MAND-DD1<\/MndtId>\s*<DtOfSgntr>2025-03-01<\/DtOfSgntr>/);
      assert.match(file.body, /<Ustrd>Factura F2026A\d+ recibo 1<\/Ustrd>/);
    }

    // Receipts in a remittance are not gathered again; nothing left: refused, the rest still listed.
    const again = await t().call('POST', '/api/3/remesasepa', { codcuenta: 'CB1', fechacargo: '2026-12-02' });
    assert.equal(again.status, 422);
    assert.equal(again.body.fields.vencimientohasta, 'no-receipts');
    assert.equal(again.body.excluidos.length, 2);
  });

  it('refuses bad input by name and keeps a generated remittance as it was made', async () => {
    for (const [body, field, reason] of [
      [{ fechacargo: '2026-12-02' }, 'codcuenta', 'required'],
      [{ codcuenta: 'NOPE', fechacargo: '2026-12-02' }, 'codcuenta', 'not-found'],
      [{ codcuenta: 'CB1' }, 'fechacargo', 'required'],
      [{ codcuenta: 'CB1', fechacargo: '2026-12-02', version: '001.05' }, 'version', 'invalid-value'],
      [{ codcuenta: 'CB1', fechacargo: '2026-12-02', vencimientohasta: '2026-12-31' }, 'vencimientohasta', 'after-collection-date'],
      [{ codcuenta: 'CB1', fechacargo: '2026-12-02', estado: 'cobrada' }, 'estado', 'invalid-value'],
    ] as const) {
      const answer = await t().call('POST', '/api/3/remesasepa', body);
      assert.equal(answer.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
      if (field === 'estado') continue;
      assert.equal(answer.body.fields[field], reason, JSON.stringify(answer.body));
    }
    // Bank details are checked wherever they are written: check digits, the country's length, the BIC's shape, the SEPA suffix.
    for (const [body, field, reason] of [
      [{ iban: 'ES91 2100 0418 4502 0005 1333' }, 'iban', 'invalid-iban'],
      [{ iban: 'ES82210004184502000513' }, 'iban', 'invalid-iban'], // check digits right, two digits short of Spain's 24 characters
      [{ iban: 'XX91 2100 0418 4502 0005 1332' }, 'iban', 'invalid-iban'],
      [{ swift: 'CAIX-ES' }, 'swift', 'invalid-swift'],
      [{ sufijosepa: 'A/1' }, 'sufijosepa', 'invalid-value'],
    ] as const) {
      const answer = await t().call('POST', '/api/3/cuentabanco', { codcuenta: 'BAD', descripcion: 'x', idempresa: 1, iban: 'ES9121000418450200051332', ...body });
      assert.deepEqual([answer.status, answer.body.fields?.[field]], [422, reason], JSON.stringify(answer.body));
    }
    for (const price of [12.34, 5.6, 7.8]) await invoice(t(), 'DD1', price);
    // Two remittances built at once over the same receipts: one takes them all, the other none (its
    // gathering found them taken, or its rows collided on the receipts' unique key and rolled back).
    const [first, second] = await Promise.all([1, 2].map(() => t().call('POST', '/api/3/remesasepa', { codcuenta: 'CB1', fechacargo: '2026-12-03' })));
    const built = first!.status === 201 ? first! : second!;
    const lost = built === first ? second! : first!;
    assert.equal(built.status, 201, JSON.stringify(built.body));
    assert.ok(lost.status === 422 || lost.status === 409, JSON.stringify(lost.body));
    assert.equal(built.body.numrecibos, 3);
    assert.equal(Number((await t().call('GET', '/api/3/reciboremesa?limit=1')).headers['x-total-count']), 203, 'every receipt in one remittance');
    assert.equal(built.body.recibos[0].secuencia, 'RCUR', 'the mandate was used before');
    assert.equal((await t().call('PATCH', `/api/3/remesasepa/${built.body.idremesa}`, { estado: 'generada' })).status, 200);
    const moved = await t().call('PATCH', `/api/3/remesasepa/${built.body.idremesa}`, { fechacargo: '2026-12-09' });
    assert.equal(moved.status, 422);
    assert.equal(moved.body.fields.fechacargo, 'read-only');
    assert.equal((await t().call('PATCH', `/api/3/remesasepa/${built.body.idremesa}`, { estado: 'cobrada' })).body.fields.estado, 'use-cobrarRemesa');
    assert.equal((await t().call('POST', '/api/3/reciboremesa', { idremesa: built.body.idremesa })).status, 405, 'its receipts are the service\'s');
  });
  it('collects a remittance: each receipt paid on the collection day with its entry; a returned receipt un-paid with the bank\'s fee, then presented again', async () => {
    for (const price of [10.01, 20.02, 30.03]) await invoice(t(), 'DD1', price);
    const built = (await t().call('POST', '/api/3/remesasepa', { codcuenta: 'CB1', fechacargo: '2026-12-04' })).body;
    assert.equal(built.numrecibos, 3, JSON.stringify(built).slice(0, 300));
    const collected = await t().call('POST', `/api/3/cobrarRemesa/${built.idremesa}`, {});
    assert.equal(collected.status, 200, JSON.stringify(collected.body));
    assert.deepEqual([collected.body.estado, collected.body.fechacobro, collected.body.pagados.length, collected.body.yapagados], ['cobrada', '2026-12-04', 3, []]);
    const lines = async (idasiento: number) => (await t().call('GET', `/api/3/partidas?filter[idasiento]=${idasiento}&limit=100`)).body as any[];
    const cents = (rows: any[], side: 'debe' | 'haber') => rows.reduce((sum, row) => sum + Math.round(row[side] * 100), 0);
    for (const row of built.recibos) {
      const receipt = (await t().call('GET', `/api/3/reciboclientes/${row.idrecibo}`)).body;
      assert.deepEqual([receipt.pagado, receipt.fechapago], [true, '2026-12-04']);
      assert.equal((await t().call('GET', `/api/3/facturaclientes/${receipt.idfactura}`)).body.pagada, true, 'the invoice is paid');
      const payments = (await t().call('GET', `/api/3/pagoclientes?filter[idrecibo]=${row.idrecibo}`)).body;
      assert.equal(payments.length, 1, 'one payment per receipt');
      assert.deepEqual([payments[0].importe, payments[0].fecha], [row.importe, '2026-12-04']);
      const entry = await lines(payments[0].idasiento);
      assert.equal(cents(entry, 'debe'), Math.round(row.importe * 100), 'the entry moves the receipt');
      assert.equal(cents(entry, 'debe'), cents(entry, 'haber'), 'and balances');
    }
    assert.equal((await t().call('POST', `/api/3/cobrarRemesa/${built.idremesa}`, {})).body.fields.estado, 'already-collected');
    assert.equal((await t().call('PATCH', `/api/3/remesasepa/${built.idremesa}`, { estado: 'enviada' })).body.fields.estado, 'collected');

    // The bank returns the second receipt with a fee of 2.50.
    const returned = built.recibos[1];
    const answer = await t().call('POST', `/api/3/devolverReciboRemesa/${returned.idrecibo}`, { fecha: '2026-12-10', gastos: 2.5, motivo: 'MD06' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual([answer.body.vigente, answer.body.fechadevolucion, answer.body.gastosdevolucion, answer.body.motivodevolucion, answer.body.recibo.pagado], [null, '2026-12-10', 2.5, 'MD06', false]);
    assert.equal((await t().call('GET', `/api/3/facturaclientes/${answer.body.recibo.idfactura}`)).body.pagada, false, 'its invoice is unpaid again');
    const [, back] = (await t().call('GET', `/api/3/pagoclientes?filter[idrecibo]=${returned.idrecibo}&sort[idpago]=ASC`)).body;
    assert.deepEqual([back.importe, back.fecha, back.gastosdevolucion], [-20.02, '2026-12-10', 2.5]);
    const entry = await lines(back.idasiento);
    assert.equal(cents(entry, 'debe'), cents(entry, 'haber'), 'the return\'s entry balances');
    assert.equal(cents(entry, 'haber'), 2252, 'the bank gives back the receipt and takes the fee');
    assert.deepEqual(entry.filter((row) => row.debe > 0).map((row) => row.debe).sort(), [2.5, 20.02], 'the customer owes the receipt again; the fee is an expense');
    for (const [body, reason] of [[{}, 'already-returned'], [{ gastos: -1 }, 'invalid-amount'], [{ fecha: 'mañana' }, 'invalid-date'], [{ motivo: 'x', nada: 1 }, 'unknown-field']] as const) {
      const refused = await t().call('POST', `/api/3/devolverReciboRemesa/${returned.idrecibo}`, body);
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.ok(Object.values(refused.body.fields).includes(reason), JSON.stringify(refused.body));
    }
    assert.equal((await t().call('POST', `/api/3/devolverReciboRemesa/${built.recibos[0].idrecibo + 100000}`, {})).body.fields.idrecibo, 'not-in-remittance');

    // The returned receipt is presented again; the remittance that returned it keeps its file as made.
    const again = await t().call('POST', '/api/3/remesasepa', { codcuenta: 'CB1', fechacargo: '2026-12-20' });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.deepEqual(again.body.recibos.map((row: any) => [row.idrecibo, row.secuencia]), [[returned.idrecibo, 'RCUR']]);
    const file = await t().request({ method: 'GET', url: `/api/3/remesasepa/${built.idremesa}/xml` });
    assert.equal(tag(file.body, 'NbOfTxs')[0], '3');
  });

  it('posts into the remittance\'s own bank account, refuses a receipt changed since the file, and leaves paid a receipt the collection did not pay', async () => {
    for (const [codsubcuenta, codcuenta] of [['5720000002', '572'], ['6260000001', '626']]) {
      const sub = await t().call('POST', '/api/3/subcuenta', { codejercicio: '2026', codcuenta, codsubcuenta, descripcion: `Cuenta ${codsubcuenta}` });
      assert.equal(sub.status, 201, JSON.stringify(sub.body));
    }
    assert.equal((await t().call('POST', '/api/3/cuentabanco', { codcuenta: 'CB2', descripcion: 'Segunda', iban: 'ES7921000813610123456789', idempresa: 1, codsubcuenta: '5720000002', codsubcuentagasto: '6260000001' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/formapago', { codpago: 'DOMX', descripcion: 'Domiciliación sin cuenta', domiciliado: true })).status, 201);
    const receipts = async () => (await t().call('GET', '/api/3/reciboclientes?filter[codpago]=DOMX&filter[pagado]=false&sort[idrecibo]=ASC&limit=100')).body as any[];
    for (const price of [40.4, 20.2, 10.1]) {
      assert.equal((await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'DD1', codpago: 'DOMX', lineas: [{ descripcion: 'Cuota', cantidad: 1, pvpunitario: price, codimpuesto: 'IVA0' }] })).status, 200);
    }
    const [first, second, third] = await receipts();
    const built = (await t().call('POST', '/api/3/remesasepa', { codcuenta: 'CB2', fechacargo: '2026-12-05' })).body;
    assert.equal(built.numrecibos, 3, JSON.stringify(built).slice(0, 300));
    // Changed after the file went to the bank: the collection is refused, naming it.
    assert.equal((await t().call('PATCH', `/api/3/reciboclientes/${first.idrecibo}`, { importe: 12.34 })).status, 200);
    const refused = await t().call('POST', `/api/3/cobrarRemesa/${built.idremesa}`, {});
    assert.deepEqual([refused.status, refused.body.fields?.recibos, refused.body.idrecibos], [422, 'amount-changed', [first.idrecibo]]);
    assert.equal((await t().call('GET', `/api/3/remesasepa/${built.idremesa}`)).body.estado, 'borrador', 'nothing settled');
    assert.equal((await t().call('PATCH', `/api/3/reciboclientes/${first.idrecibo}`, { importe: 40.4 })).status, 200);
    // The third was paid another way before the bank collected.
    assert.equal((await t().call('PATCH', `/api/3/reciboclientes/${third.idrecibo}`, { pagado: true, fechapago: '2026-12-01' })).status, 200);
    const collected = (await t().call('POST', `/api/3/cobrarRemesa/${built.idremesa}`, {})).body;
    assert.deepEqual([collected.pagados, collected.yapagados], [[first.idrecibo, second.idrecibo], [third.idrecibo]]);
    const lines = async (idrecibo: number) => {
      const payments = (await t().call('GET', `/api/3/pagoclientes?filter[idrecibo]=${idrecibo}&sort[idpago]=DESC&limit=1`)).body as any[];
      return ((await t().call('GET', `/api/3/partidas?filter[idasiento]=${payments[0].idasiento}&limit=100`)).body as any[]).map((row) => [row.codsubcuenta, row.debe, row.haber]);
    };
    assert.ok((await lines(first.idrecibo)).some(([code, debe]) => code === '5720000002' && debe === 40.4), 'the remittance\'s bank account is debited');
    // A return: the fee to the account's fee sub-account, the bank credited with the receipt and the fee.
    assert.equal((await t().call('POST', `/api/3/devolverReciboRemesa/${second.idrecibo}`, { gastos: 1.5 })).status, 200);
    const back = await lines(second.idrecibo);
    assert.ok(back.some(([code, debe]) => code === '6260000001' && debe === 1.5), JSON.stringify(back));
    assert.ok(back.some(([code, , haber]) => code === '5720000002' && haber === 21.7), JSON.stringify(back));
    // The receipt the customer had paid stays paid when the bank gives its second collection back.
    const kept = await t().call('POST', `/api/3/devolverReciboRemesa/${third.idrecibo}`, {});
    assert.deepEqual([kept.status, kept.body.cobrado, kept.body.recibo.pagado], [200, false, true], JSON.stringify(kept.body));
  });

  it('pays suppliers by transfer: a pain.001 of each version that validates, the receipts paid on the execution day with their entries', async () => {
    assert.equal((await t().call('POST', '/api/3/proveedor', { codproveedor: 'TR1', nombre: 'Suministros Ñandú', cifnif: 'B12345674' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/proveedor', { codproveedor: 'TR2', nombre: 'Sin Cuenta', cifnif: 'A28000032' })).status, 201);
    const refused = await t().call('POST', '/api/3/cuentabancoproveedor', { codproveedor: 'TR1', iban: 'ES7921000813610123456780' });
    assert.equal(refused.status, 422, 'a wrong IBAN is refused where it is written');
    assert.equal((await t().call('POST', '/api/3/cuentabancoproveedor', { codproveedor: 'TR1', iban: 'ES7921000813610123456789', swift: 'CAIXESBB' })).status, 201);
    const amounts = [0.1, 0.2, 1234567.89, 99.99];
    for (const [codproveedor, price] of [...amounts.map((amount) => ['TR1', amount] as const), ['TR2', 5] as const]) {
      const created = await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor, codpago: 'TRANS', lineas: [{ descripcion: 'Material', cantidad: 1, pvpunitario: price, codimpuesto: 'IVA0' }] });
      assert.equal(created.status, 200, JSON.stringify(created.body));
    }
    assert.equal((await t().call('POST', '/api/3/transferenciasepa', { codcuenta: 'CB1', fechaejecucion: '2026-12-20' })).body.fields.vencimientohasta, 'no-receipts', 'nothing due yet');
    const built = await t().call('POST', '/api/3/transferenciasepa', { codcuenta: 'CB1', fechaejecucion: '2026-12-31', version: '001.09' });
    assert.equal(built.status, 201, JSON.stringify(built.body));
    assert.equal(built.body.numrecibos, 4);
    assert.equal(Math.round(built.body.total * 100), amounts.reduce((sum, amount) => sum + Math.round(amount * 100), 0));
    assert.deepEqual(built.body.excluidos.map((row: any) => [row.codproveedor, row.motivo]), [['TR2', 'no-bank-account']]);
    for (const version of ['001.09', '001.03']) {
      if (version === '001.03') assert.equal((await t().call('PATCH', `/api/3/transferenciasepa/${built.body.idtransferencia}`, { version })).status, 200);
      const file = await t().request({ method: 'GET', url: `/api/3/transferenciasepa/${built.body.idtransferencia}/xml` });
      assert.equal(file.statusCode, 200);
      assertValid(file.body, `pain.001.${version}`);
      assert.deepEqual(tag(file.body, 'NbOfTxs'), ['4', '4']);
      assert.deepEqual(tag(file.body, 'CtrlSum'), ['1234668.18', '1234668.18']);
      assert.match(file.body, /<Nm>Suministros Nandu<\/Nm>/);
      assert.match(file.body, version === '001.03' ? /<BIC>CAIXESBB<\/BIC>/ : /<BICFI>CAIXESBB<\/BICFI>/);
      assert.match(file.body, version === '001.03' ? /<ReqdExctnDt>2026-12-31<\/ReqdExctnDt>/ : /<ReqdExctnDt>\s*<Dt>2026-12-31<\/Dt>/);
    }
    assert.equal((await t().call('PATCH', `/api/3/transferenciasepa/${built.body.idtransferencia}`, { estado: 'pagada' })).body.fields.estado, 'use-pagarTransferenciaSepa');
    const paid = await t().call('POST', `/api/3/pagarTransferenciaSepa/${built.body.idtransferencia}`, {});
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.deepEqual([paid.body.estado, paid.body.fechapago, paid.body.pagados.length], ['pagada', '2026-12-31', 4]);
    for (const row of built.body.recibos) {
      const receipt = (await t().call('GET', `/api/3/reciboproveedores/${row.idrecibo}`)).body;
      assert.deepEqual([receipt.pagado, receipt.fechapago], [true, '2026-12-31']);
      assert.equal((await t().call('GET', `/api/3/facturaproveedores/${receipt.idfactura}`)).body.pagada, true);
      const [payment] = (await t().call('GET', `/api/3/pagoproveedores?filter[idrecibo]=${row.idrecibo}`)).body;
      const entry = (await t().call('GET', `/api/3/partidas?filter[idasiento]=${payment.idasiento}`)).body as any[];
      assert.deepEqual(entry.map((line) => Math.round((line.debe + line.haber) * 100)), [Math.round(row.importe * 100), Math.round(row.importe * 100)]);
    }
    assert.equal((await t().call('POST', `/api/3/pagarTransferenciaSepa/${built.body.idtransferencia}`, {})).body.fields.estado, 'already-paid');
    assert.equal((await t().call('DELETE', `/api/3/transferenciasepa/${built.body.idtransferencia}`)).status, 422, 'an order sent to the bank stays');
  });

  it('takes a version by the message\'s full name, stored short, and answers an unknown one with the versions it takes', async () => {
    // A remittance: pain.008 by its full name; a pain.001 name or an unwritten version refused with the list.
    for (const [version, stored] of [['pain.008.001.99', null], ['pain.001.001.09', null], ['pain.008.001.08', '001.08']] as const) {
      if (stored) await invoice(t(), 'DD1', 21.5);
      const answer = await t().call('POST', '/api/3/remesasepa', { codcuenta: 'CB1', fechacargo: '2026-12-05', version });
      if (!stored) {
        assert.equal(answer.status, 422, `${version}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual([answer.body.message, answer.body.fields, answer.body.accepted], ['validation-failed', { version: 'invalid-value' }, { version: ['001.02', '001.08'] }]);
        continue;
      }
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.version, stored);
      const id = answer.body.idremesa;
      assert.equal((await t().call('GET', `/api/3/remesasepa/${id}`)).body.version, '001.08');
      const found = async (version: string) => (await t().call('GET', `/api/3/remesasepa?filter[version]=${version}&limit=100`)).body.map((row: any) => row.idremesa);
      assert.ok((await found('pain.008.001.08')).includes(id), 'a filter reads the full name too');
      assert.deepEqual(await found('pain.008.001.08'), await found('001.08'));
      const file = await t().request({ method: 'GET', url: `/api/3/remesasepa/${id}/xml` });
      assert.equal(file.statusCode, 200);
      assert.match(String(file.headers['content-disposition']), /pain\.008\.001\.08\.xml/);
      assertValidPain008(file.body, '001.08');
      const patched = await t().call('PATCH', `/api/3/remesasepa/${id}`, { version: 'pain.008.001.02' });
      assert.deepEqual([patched.status, patched.body.version], [200, '001.02']);
    }

    // A transfer order: pain.001 likewise; a pain.008 name is no pain.001 version.
    assert.equal((await t().call('POST', '/api/3/proveedor', { codproveedor: 'TR3', nombre: 'Versiones SL', cifnif: 'B12345674' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/cuentabancoproveedor', { codproveedor: 'TR3', iban: 'ES7921000813610123456789' })).status, 201);
    const bill = await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'TR3', codpago: 'TRANS', lineas: [{ descripcion: 'Material', cantidad: 1, pvpunitario: 42, codimpuesto: 'IVA0' }] });
    assert.equal(bill.status, 200, JSON.stringify(bill.body));
    for (const version of ['pain.001.001.99', 'pain.008.001.08', '001.08']) {
      const refused = await t().call('POST', '/api/3/transferenciasepa', { codcuenta: 'CB1', fechaejecucion: '2026-12-31', version });
      assert.equal(refused.status, 422, `${version}: ${JSON.stringify(refused.body)}`);
      assert.deepEqual([refused.body.fields, refused.body.accepted], [{ version: 'invalid-value' }, { version: ['001.03', '001.09'] }]);
    }
    const built = await t().call('POST', '/api/3/transferenciasepa', { codcuenta: 'CB1', fechaejecucion: '2026-12-31', version: 'pain.001.001.09' });
    assert.equal(built.status, 201, JSON.stringify(built.body));
    assert.equal(built.body.version, '001.09');
    const file = await t().request({ method: 'GET', url: `/api/3/transferenciasepa/${built.body.idtransferencia}/xml` });
    assert.equal(file.statusCode, 200);
    assert.match(String(file.headers['content-disposition']), /pain\.001\.001\.09\.xml/);
    assertValid(file.body, 'pain.001.001.09');
  });
}, { clock });
