import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { camt053File, norma43File, type Norma43Movement } from './helpers/statement-files.ts';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * Bank statements and matching (docs/banking.md) on every engine: Norma 43 and camt.053 files
 * stored once however often imported, refused whole when they do not add up or name another
 * account; movements matched to the remittance, receipts or returned debit they settle, and paid
 * through the payment path on their value day with balanced entries.
 */
const TODAY = '2026-11-27';
const offset = Date.parse(`${TODAY}T10:00:00Z`) - Date.now();
const clock = { now: () => Date.now() + offset };
// Bank 0081, branch 0054, account 0001234567: the IBAN the reference rebuilds from the file's account.
const ACCOUNT = { banco: '0081', oficina: '0054', cuenta: '0001234567' };
const IBAN = 'ES5400810054180001234567';

async function invoice(t: TestApp, codcliente: string, price: number, codpago: string): Promise<{ idfactura: number; codigo: string; idrecibo: number }> {
  const answer = await t.call('POST', '/api/3/crearFacturaCliente', { codcliente, codpago, lineas: [{ descripcion: 'Cuota', cantidad: 1, pvpunitario: price, codimpuesto: 'IVA0' }] });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const [receipt] = (await t.call('GET', `/api/3/reciboclientes?filter[idfactura]=${answer.body.doc.idfactura}`)).body;
  return { idfactura: answer.body.doc.idfactura, codigo: answer.body.doc.codigo, idrecibo: receipt.idrecibo };
}

const statement = (movimientos: Norma43Movement[], options = {}) =>
  norma43File([{ ...ACCOUNT, desde: '2026-12-01', hasta: '2026-12-15', saldoinicial: 1000, movimientos }], options).toString('latin1');

async function balanced(t: TestApp, idasiento: number): Promise<number> {
  const rows = (await t.call('GET', `/api/3/partidas?filter[idasiento]=${idasiento}&limit=100`)).body as any[];
  const debe = rows.reduce((sum, row) => sum + Math.round(row.debe * 100), 0);
  assert.equal(debe, rows.reduce((sum, row) => sum + Math.round(row.haber * 100), 0), `entry ${idasiento} balances`);
  return debe;
}

forEachEngine('bank statements and matching', (t) => {
  before(async () => {
    assert.equal((await t().call('PATCH', '/api/3/empresa/1', { cifnif: 'B85626240' })).status, 200);
    assert.equal((await t().call('POST', '/api/3/cuentabanco', { codcuenta: 'BK1', descripcion: 'Cuenta principal', iban: IBAN, idempresa: 1 })).status, 201);
    assert.equal((await t().call('POST', '/api/3/formapago', { codpago: 'DOMB', descripcion: 'Domiciliación', domiciliado: true, codcuentabanco: 'BK1' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/formapago', { codpago: 'TRFB', descripcion: 'Transferencia', codcuentabanco: 'BK1' })).status, 201);
    for (const codcliente of ['SM1', 'SM2']) assert.equal((await t().call('POST', '/api/3/cliente', { codcliente, nombre: `Cliente ${codcliente}`, cifnif: '12345678Z' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/cuentabancocliente', { codcliente: 'SM1', iban: 'ES7921000813610123456789', mandato: 'MAND-SM1', fmandato: '2025-01-10' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/cuentabancocliente', { codcliente: 'SM2', iban: 'ES9121000418450200051332' })).status, 201);
  });

  it('stores a Norma 43 file\'s and a camt.053 file\'s movements once however often imported, and refuses a file that does not add up or names another account', async () => {
    const movements: Norma43Movement[] = [
      { fecha: '2026-12-01', importe: -35.6, concepto: '03', textos: ['REBUT         PARKING'] },
      { fecha: '2026-12-01', importe: -35.6, concepto: '03', textos: ['REBUT         PARKING'] },
      { fecha: '2026-12-02', fechavalor: '2026-12-03', importe: 787.89, concepto: '04', textos: ['TRANSF. SEPA  CUSTOMER NAME'] },
    ];
    const file = statement(movements);
    const first = await t().call('POST', '/api/3/importarExtractoBancario', { contenido: file });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.formato, first.body.nuevos, first.body.repetidos], ['norma43', 3, 0]);
    assert.deepEqual(first.body.movimientos.map((row: any) => [row.codcuenta, row.fecha, row.fechavalor, row.importe, row.concepto]), [
      ['BK1', '2026-12-01', '2026-12-01', -35.6, '03'], ['BK1', '2026-12-01', '2026-12-01', -35.6, '03'], ['BK1', '2026-12-02', '2026-12-03', 787.89, '04'],
    ], 'two equal movements of one day stay two');
    const again = await t().call('POST', '/api/3/importarExtractoBancario', { contenido: file });
    assert.deepEqual([again.body.nuevos, again.body.repetidos], [0, 3]);
    assert.deepEqual(again.body.movimientos.map((row: any) => row.idmovimiento), first.body.movimientos.map((row: any) => row.idmovimiento));
    // The same file as a multipart upload, its lines cut short and LF-ended as some banks write it: the same movements.
    const form = new FormData();
    form.append('file', new Blob([statement(movements, { lineEnd: '\n', trimTrailing: true, countIncludesTrailer: true })]), 'extracto.n43');
    const uploaded = await t().request({ method: 'POST', url: '/api/3/importarExtractoBancario', body: form });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    assert.deepEqual([JSON.parse(uploaded.body).nuevos, JSON.parse(uploaded.body).repetidos], [0, 3]);
    // A later statement holding one more movement adds only it.
    const longer = await t().call('POST', '/api/3/importarExtractoBancario', { contenido: statement([...movements, { fecha: '2026-12-04', importe: -8, concepto: '17', textos: ['COMISION'] }]) });
    assert.deepEqual([longer.body.nuevos, longer.body.repetidos], [1, 3]);

    const camt = camt053File('001.08', [{ iban: IBAN, desde: '2026-12-05', hasta: '2026-12-06', saldoinicial: 500, entries: [
      { importe: 120.5, fecha: '2026-12-05', acctSvcrRef: 'BK-0001', code: ['PMNT', 'RCDT', 'ESCT'], transactions: [{ endToEnd: 'E2E-1', debtor: { name: 'Pagador', iban: 'ES9121000418450200051332' }, remittance: ['Pago'] }] },
      { importe: 120.5, fecha: '2026-12-05', acctSvcrRef: 'BK-0002', code: ['PMNT', 'RCDT', 'ESCT'] },
      { importe: -3.1, fecha: '2026-12-06', acctSvcrRef: 'BK-0003', code: ['PMNT', 'CCRD', 'CHRG'] },
    ] }]);
    const imported = await t().call('POST', '/api/3/importarExtractoBancario', { contenido: camt });
    assert.deepEqual([imported.status, imported.body.formato, imported.body.nuevos], [200, 'camt053', 3], JSON.stringify(imported.body));
    assert.deepEqual([imported.body.movimientos[0].endtoend, imported.body.movimientos[0].ibancontraparte, imported.body.movimientos[0].referenciabanco], ['E2E-1', 'ES9121000418450200051332', 'BK-0001']);
    assert.deepEqual((await t().call('POST', '/api/3/importarExtractoBancario', { contenido: camt })).body.repetidos, 3);

    // Daily files and then the month's: entry numbers (NtryRef) restart per file, the bank's reference does not.
    const day = (entries: any[]) => camt053File('001.02', [{ iban: IBAN, desde: entries[0].fecha, hasta: entries.at(-1).fecha, saldoinicial: 0, entries }]);
    const monday = { importe: 5, fecha: '2026-12-07', ntryRef: '1', info: 'Ingreso lunes' };
    const tuesday = { importe: 6, fecha: '2026-12-08', ntryRef: '1', info: 'Ingreso martes' };
    assert.equal((await t().call('POST', '/api/3/importarExtractoBancario', { contenido: day([monday]) })).body.nuevos, 1);
    assert.equal((await t().call('POST', '/api/3/importarExtractoBancario', { contenido: day([tuesday]) })).body.nuevos, 1);
    const month = await t().call('POST', '/api/3/importarExtractoBancario', { contenido: `\n${day([{ ...monday, ntryRef: '1' }, { ...tuesday, ntryRef: '2' }])}` });
    assert.deepEqual([month.status, month.body.nuevos, month.body.repetidos], [200, 0, 2], JSON.stringify(month.body).slice(0, 300));
    // Three imports of one new file at once: each answers, the movements are stored once.
    const wednesday = day([{ importe: 7, fecha: '2026-12-09', info: 'Ingreso miercoles' }, { importe: 8, fecha: '2026-12-09', info: 'Ingreso miercoles bis' }]);
    const together = await Promise.all([1, 2, 3].map(() => t().call('POST', '/api/3/importarExtractoBancario', { contenido: wednesday })));
    assert.deepEqual(together.map((answer) => answer.status), [200, 200, 200], JSON.stringify(together.map((answer) => answer.body)).slice(0, 300));
    assert.equal(together.reduce((sum, answer) => sum + answer.body.nuevos, 0), 2);

    // A long statement whose texts name many references: matched in slices, whatever the engine's bound-parameter limit.
    const busy = Array.from({ length: 1200 }, (_, i) => ({ fecha: '2026-12-10', importe: i % 2 ? 1 + i / 100 : -(1 + i / 100), concepto: '04', textos: [`REF${i}A REF${i}B F${i}X ${i}-${i}`] }));
    const long = await t().call('POST', '/api/3/importarExtractoBancario', { contenido: statement(busy) });
    assert.deepEqual([long.status, long.body.nuevos], [200, 1200], JSON.stringify(long.body).slice(0, 300));

    const count = async () => Number((await t().call('GET', '/api/3/movimientobanco?limit=1')).headers['x-total-count']);
    const stored = await count();
    assert.equal(stored, 1211);
    const refusals: Array<[string, string, number | null]> = [
      // The trailer's credit total one cent off.
      [statement(movements, { tamper: (records: string[]) => records.map((record) => (record.startsWith('33') ? `${record.slice(0, 57)}${String(Number(record.slice(57, 58)) ^ 1)}${record.slice(58)}` : record)) }), 'totals-mismatch', 8],
      // Cut after the second movement: no trailer.
      [statement(movements).split('\r\n').slice(0, 5).join('\r\n'), 'truncated', null],
      // Another bank's account.
      [norma43File([{ banco: '2100', oficina: '0418', cuenta: '0200051332', desde: '2026-12-01', hasta: '2026-12-02', saldoinicial: 0, movimientos: movements }]).toString('latin1'), 'unknown-account', 1],
      ['<Document><nope', 'invalid-xml', null],
    ];
    for (const [contenido, motivo, linea] of refusals) {
      const answer = await t().call('POST', '/api/3/importarExtractoBancario', { contenido });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.fields.contenido, motivo, JSON.stringify(answer.body));
      if (linea !== null) assert.equal(answer.body.linea, linea, JSON.stringify(answer.body));
    }
    assert.equal(await count(), stored, 'nothing half written');
    assert.equal((await t().call('POST', '/api/3/importarExtractoBancario', {})).body.fields.file, 'required');
    assert.equal((await t().call('POST', '/api/3/importarExtractoBancario', { contenido: 5 })).body.fields.contenido, 'invalid-text');
  });

  it('matches movements to the remittance, receipts or returned debit they settle, and pays them on the value day', async () => {
    // A remittance of three direct debits, credited by the bank as one movement.
    const debits = [await invoice(t(), 'SM1', 40.4, 'DOMB'), await invoice(t(), 'SM1', 50.5, 'DOMB'), await invoice(t(), 'SM1', 9.1, 'DOMB')];
    const remittance = (await t().call('POST', '/api/3/remesasepa', { codcuenta: 'BK1', fechacargo: '2026-12-10' })).body;
    assert.equal(remittance.numrecibos, 3, JSON.stringify(remittance).slice(0, 300));
    // Two invoices paid by one transfer naming both; one paid by a transfer of its amount only.
    const [a, b, c] = [await invoice(t(), 'SM2', 100, 'TRFB'), await invoice(t(), 'SM2', 21.21, 'TRFB'), await invoice(t(), 'SM2', 77.77, 'TRFB')];
    const file = statement([
      { fecha: '2026-12-10', fechavalor: '2026-12-10', importe: 100, concepto: '06', textos: ['REMESA RECIBOS N/0001'] },
      { fecha: '2026-12-11', fechavalor: '2026-12-11', importe: 121.21, concepto: '04', textos: [`TRANSF. SM2 ${a.codigo} ${b.codigo}`] },
      { fecha: '2026-12-11', fechavalor: '2026-12-12', importe: 77.77, concepto: '04', textos: ['TRANSFERENCIA RECIBIDA'] },
      { fecha: '2026-12-12', importe: -3, concepto: '17', textos: ['COM.CED.REMES N/0001'] },
    ]);
    const { movimientos } = (await t().call('POST', '/api/3/importarExtractoBancario', { contenido: file })).body;
    const [credit, transfer, single, fee] = movimientos;
    assert.deepEqual([credit.propuestas[0].tipo, credit.propuestas[0].idremesa], ['remesa', remittance.idremesa]);
    assert.deepEqual([transfer.propuestas[0].tipo, transfer.propuestas[0].idrecibos], ['recibos', [a.idrecibo, b.idrecibo]]);
    assert.ok(single.propuestas.some((proposal: any) => proposal.idrecibos?.[0] === c.idrecibo), JSON.stringify(single.propuestas));
    assert.deepEqual(fee.propuestas, []);

    const confirmed = await t().call('POST', `/api/3/conciliarMovimiento/${credit.idmovimiento}`, {});
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.deepEqual([confirmed.body.conciliado, confirmed.body.idremesa, confirmed.body.recibos.length], [true, remittance.idremesa, 3]);
    assert.equal((await t().call('GET', `/api/3/remesasepa/${remittance.idremesa}`)).body.estado, 'cobrada');
    for (const debit of debits) {
      const receipt = (await t().call('GET', `/api/3/reciboclientes/${debit.idrecibo}`)).body;
      assert.deepEqual([receipt.pagado, receipt.fechapago], [true, '2026-12-10']);
      const [payment] = (await t().call('GET', `/api/3/pagoclientes?filter[idrecibo]=${debit.idrecibo}`)).body;
      assert.equal(await balanced(t(), payment.idasiento), Math.round(receipt.importe * 100));
    }
    assert.equal((await t().call('POST', `/api/3/conciliarMovimiento/${credit.idmovimiento}`, {})).body.fields.estado, 'already-reconciled');

    assert.deepEqual((await t().call('POST', `/api/3/conciliarMovimiento/${transfer.idmovimiento}`, {})).body.recibos, [a.idrecibo, b.idrecibo]);
    for (const paid of [a, b]) assert.equal((await t().call('GET', `/api/3/facturaclientes/${paid.idfactura}`)).body.pagada, true);
    // Receipts named by the client must add up to the movement.
    assert.equal((await t().call('POST', `/api/3/conciliarMovimiento/${single.idmovimiento}`, { idrecibos: [debits[0]!.idrecibo] })).body.fields.idrecibos, 'already-paid');
    const mismatch = await invoice(t(), 'SM2', 5, 'TRFB');
    assert.equal((await t().call('POST', `/api/3/conciliarMovimiento/${single.idmovimiento}`, { idrecibos: [mismatch.idrecibo] })).body.fields.idrecibos, 'amount-mismatch');
    const named = await t().call('POST', `/api/3/conciliarMovimiento/${single.idmovimiento}`, { idrecibos: [c.idrecibo] });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.deepEqual((await t().call('GET', `/api/3/reciboclientes/${c.idrecibo}`)).body.fechapago, '2026-12-12', 'paid on the value day');
    assert.equal((await t().call('POST', `/api/3/conciliarMovimiento/${fee.idmovimiento}`, {})).body.fields.propuestas, 'none');
    const open = (await t().call('GET', '/api/3/movimientobanco?filter[conciliado]=false&sort[idmovimiento]=DESC&limit=100')).body.map((row: any) => row.idmovimiento);
    assert.ok(open.includes(fee.idmovimiento) && !open.includes(credit.idmovimiento), 'the unmatched movements are listed');

    // The bank returns the second direct debit: its end-to-end id in the 2305 record, its fee in the same movement.
    const returned = remittance.recibos[1];
    const back = statement([{ fecha: '2026-12-14', importe: -(returned.importe + 2.5), concepto: '14', sepaDebit: {
      scheme: 'CORE', creditorName: 'ACME', creditorId: remittance.identificador, mandate: 'MAND-SM1', remittance: 'Devolucion', endToEnd: returned.endtoend, debtorName: 'Cliente SM1',
    } }]);
    const [movement] = (await t().call('POST', '/api/3/importarExtractoBancario', { contenido: back })).body.movimientos;
    assert.deepEqual([movement.propuestas[0].tipo, movement.propuestas[0].idrecibos, movement.endtoend, movement.mandato], ['devolucion', [returned.idrecibo], returned.endtoend, 'MAND-SM1']);
    assert.equal((await t().call('POST', `/api/3/conciliarMovimiento/${movement.idmovimiento}`)).status, 200);
    const receipt = (await t().call('GET', `/api/3/reciboclientes/${returned.idrecibo}`)).body;
    assert.equal(receipt.pagado, false, 'the returned receipt is unpaid');
    const row = (await t().call('GET', `/api/3/reciboremesa?filter[idrecibo]=${returned.idrecibo}`)).body[0];
    assert.deepEqual([row.vigente, row.fechadevolucion, row.gastosdevolucion], [null, '2026-12-14', 2.5]);
    const [undo] = (await t().call('GET', `/api/3/pagoclientes?filter[idrecibo]=${returned.idrecibo}&sort[idpago]=DESC&limit=1`)).body;
    assert.deepEqual([undo.importe, undo.gastosdevolucion], [-returned.importe, 2.5], 'the fee the movement took is posted with the return');
    assert.equal(await balanced(t(), undo.idasiento), Math.round((returned.importe + 2.5) * 100));
  });
}, { clock });
