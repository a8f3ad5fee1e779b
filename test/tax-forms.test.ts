import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { observe } from './helpers/observe-statements.ts';
import { forEachEngine, withOtherInstance, type TestApp } from './helpers/test-app.ts';

/**
 * The VAT return (Modelo 303, docs/tax-forms.md) on every engine, from a quarter built through the
 * API: sales at several rates with and without surcharge, a credit note, an intra-EU delivery, an
 * export, an invoice with IRPF; domestic, intra-EU, reverse-charge and IRPF purchases, a credit
 * note received, a purchase received in the next quarter. Every box against hand-computed values.
 */
const TODAY = '2026-11-27';
const offset = Date.parse(`${TODAY}T10:00:00Z`) - Date.now();
const clock = { now: () => Date.now() + offset };

type Line = { pvpunitario: number; codimpuesto: string; irpf?: number };

async function sale(t: TestApp, codcliente: string, fecha: string, lines: Line[], extra: Record<string, unknown> = {}): Promise<number> {
  const answer = await t.call('POST', '/api/3/crearFacturaCliente', { codcliente, fecha, ...extra, lineas: lines.map((line) => ({ descripcion: 'Venta', cantidad: 1, ...line })) });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.doc.idfactura;
}

async function purchase(t: TestApp, codproveedor: string, fecha: string, lines: Line[], extra: Record<string, unknown> = {}): Promise<number> {
  const answer = await t.call('POST', '/api/3/crearFacturaProveedor', { codproveedor, fecha, ...extra, lineas: lines.map((line) => ({ descripcion: 'Compra', cantidad: 1, ...line })) });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.doc.idfactura;
}

const ZERO_EXCEPT = (expected: Record<string, number>, casillas: Record<string, number>) => {
  const rates = new Set(['02', '05', '08', '151', '154', '166', '157', '169', '17', '20', '23', '65']);
  for (const [name, value] of Object.entries(casillas)) {
    if (rates.has(name)) continue;
    assert.equal(value, expected[name] ?? 0, `box ${name}`);
  }
};

forEachEngine('VAT return (Modelo 303)', (t) => {
  before(async () => {
    const customers: Array<Record<string, unknown>> = [
      { codcliente: 'T1', nombre: 'Cliente general', cifnif: '12345678Z' },
      { codcliente: 'T2', nombre: 'Comercio en recargo', cifnif: 'B12345674', regimeniva: 'Recargo' },
      { codcliente: 'T3', nombre: 'Client France', cifnif: 'FR40303265045' },
      { codcliente: 'T4', nombre: 'US customer', cifnif: 'US123' },
      { codcliente: 'T5', nombre: 'Justo encima', cifnif: 'X1234567L' },
      { codcliente: 'T6', nombre: 'Justo debajo', cifnif: 'Y1234567X' },
    ];
    for (const customer of customers) assert.equal((await t().call('POST', '/api/3/cliente', customer)).status, 201);
    for (const [codproveedor, nombre, cifnif] of [['Q1', 'Proveedor nacional', 'A28000032'], ['Q2', 'Lieferant GmbH', 'DE129273398'], ['Q3', 'Constructora ISP', 'B85626240'], ['Q4', 'Abogada', '00000000T']]) {
      assert.equal((await t().call('POST', '/api/3/proveedor', { codproveedor, nombre, cifnif })).status, 201);
    }
  });

  it('keeps the boxes with the invoices when they change, and answers in the same statements whatever their number', async () => {
    const before = (await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=2T')).body.casillas;
    const id = await sale(t(), 'T1', '2026-05-10', [{ pvpunitario: 100, codimpuesto: 'IVA21' }]);
    const edited = await t().call('PUT', `/api/3/editarFacturaCliente/${id}`, { lineas: [{ descripcion: 'Venta', cantidad: 2, pvpunitario: 100, codimpuesto: 'IVA10' }] });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const after = (await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=2T')).body.casillas;
    assert.deepEqual([after['04'] - before['04'], after['06'] - before['06'], after['07'] - before['07']], [200, 20, 0]);
    const statements = async () => {
      const { counter } = t().app.ctx.database;
      let count = 0;
      counter.observer = () => void count++;
      try {
        assert.equal((await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=2T')).status, 200);
      } finally {
        counter.observer = undefined;
      }
      return count;
    };
    // The first read after the edit may reload a cache the edit invalidated: count the second.
    await statements();
    const few = await statements();
    for (let i = 0; i < 10; i++) await sale(t(), 'T1', '2026-06-01', [{ pvpunitario: 10 + i, codimpuesto: 'IVA21' }]);
    await statements();
    assert.equal(await statements(), few, 'the same statements for ten more invoices');
  });

  it('computes every box of a quarter by hand, credit notes in 14/15 and 40/41, IRPF never, purchases by the day they were received', async () => {
    await sale(t(), 'T1', '2026-09-20', [{ pvpunitario: 100, codimpuesto: 'IVA21' }]);
    const first = await sale(t(), 'T1', '2026-10-10', [{ pvpunitario: 1000, codimpuesto: 'IVA21' }]);
    await sale(t(), 'T1', '2026-10-11', [{ pvpunitario: 200, codimpuesto: 'IVA10' }, { pvpunitario: 50, codimpuesto: 'IVA4' }]);
    await sale(t(), 'T2', '2026-10-12', [{ pvpunitario: 300, codimpuesto: 'IVA21' }]);
    await sale(t(), 'T3', '2026-10-13', [{ pvpunitario: 500, codimpuesto: 'IVA21' }], { operacion: 'intracomunitaria' });
    await sale(t(), 'T4', '2026-10-14', [{ pvpunitario: 800, codimpuesto: 'IVA21' }], { operacion: 'exportacion' });
    await sale(t(), 'T1', '2026-10-15', [{ pvpunitario: 1000, codimpuesto: 'IVA21', irpf: 15 }]);
    const refund = await t().call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: first, fecha: '2026-11-02' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));

    await purchase(t(), 'Q1', '2026-09-28', [{ pvpunitario: 100, codimpuesto: 'IVA10' }], { fecharecepcion: '2026-10-02' });
    await purchase(t(), 'Q1', '2026-10-20', [{ pvpunitario: 400, codimpuesto: 'IVA21' }]);
    await purchase(t(), 'Q2', '2026-10-21', [{ pvpunitario: 1000, codimpuesto: 'IVA21' }], { operacion: 'intracomunitaria' });
    await purchase(t(), 'Q3', '2026-10-22', [{ pvpunitario: 2000, codimpuesto: 'IVA21' }], { operacion: 'inv-sujeto-pasivo' });
    const professional = await purchase(t(), 'Q4', '2026-10-23', [{ pvpunitario: 500, codimpuesto: 'IVA21', irpf: 15 }]);
    await purchase(t(), 'Q1', '2026-11-05', [{ pvpunitario: -50, codimpuesto: 'IVA21' }]);
    await purchase(t(), 'Q1', '2026-11-20', [{ pvpunitario: 700, codimpuesto: 'IVA21' }], { fecharecepcion: '2027-01-03' });

    const answer = await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=4T');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { casillas } = answer.body;
    assert.deepEqual([answer.body.modelo, answer.body.periodo, answer.body.desde, answer.body.hasta, answer.body.tipodeclaracion], ['303', '4T', '2026-10-01', '2026-12-31', 'I']);
    assert.deepEqual(answer.body.avisos, []);
    const expected = {
      '01': 50, '03': 2, '04': 200, '06': 20, '07': 2300, '09': 483, 22: 300, 24: 15.6,
      10: 1000, 11: 210, 12: 2000, 13: 420, 14: -1000, 15: -210, 27: 940.6,
      28: 3000, 29: 619, 36: 1000, 37: 210, 40: -50, 41: -10.5, 45: 818.5, 46: 122.1,
      59: 500, 60: 800, 64: 122.1, 66: 122.1, 69: 122.1, 71: 122.1,
    } as Record<string, number>;
    ZERO_EXCEPT(expected, casillas);
    assert.deepEqual([casillas['02'], casillas['05'], casillas['08'], casillas['23'], casillas['65']], [4, 10, 21, 5.2, 100]);
    assert.ok(Object.keys(casillas).every((name) => /^\d{2,3}$/.test(name)), 'boxes keyed by their number, two digits at least');

    // The agency's file of the same return (2026 design): its boxes where the record design puts them.
    const file = await t().request({ method: 'GET', url: '/api/3/modelo303?codejercicio=2026&periodo=4T&formato=aeat' });
    assert.equal(file.statusCode, 200, file.body);
    assert.match(String(file.headers['content-type']), /^text\/plain; charset=ISO-8859-1/i);
    const text = file.rawPayload.toString('latin1');
    assert.ok(text.startsWith('<T303020264T0000><AUX>') && text.endsWith('</T303020264T0000>'));
    assert.equal(text.length, 17 + 311 + 1581 + 1017 + 18);
    assert.equal(text.slice(328 + 325, 328 + 342), '00000000000230000', '[07] = 2,300.00 at 326 of page 01');
    assert.equal(text.slice(328 + 432, 328 + 449), 'N0000000000100000', '[14] = -1,000.00');
    assert.equal((await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=4T&formato=odt')).body.fields.formato, 'invalid-value');
    const csv = await t().request({ method: 'GET', url: '/api/3/modelo303?codejercicio=2026&periodo=4T&formato=csv' });
    assert.match(csv.body, /\r\n07;2300\r\n/, 'the boxes as a report');
    const pdf = await t().request({ method: 'GET', url: '/api/3/modelo303?codejercicio=2026&periodo=4T&formato=pdf' });
    assert.deepEqual([pdf.statusCode, pdf.headers['content-type'], pdf.rawPayload.subarray(0, 5).toString()], [200, 'application/pdf', '%PDF-']);
    const xlsx = await t().request({ method: 'GET', url: '/api/3/modelo303?codejercicio=2026&periodo=4T&formato=xlsx' });
    assert.deepEqual([xlsx.statusCode, xlsx.rawPayload.subarray(0, 2).toString()], [200, 'PK']);

    // The third quarter: the September sale; the purchase dated in September but received in October is not in it.
    const third = (await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=3T')).body;
    ZERO_EXCEPT({ '07': 100, '09': 21, 27: 21, 46: 21, 64: 21, 66: 21, 69: 21, 71: 21 }, third.casillas);
    // A month of a monthly filer.
    const october = (await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=10')).body;
    assert.deepEqual([october.desde, october.hasta, october.casillas['14']], ['2026-10-01', '2026-10-31', 0], 'the credit note of November is not October\'s');
    // A deleted invoice leaves the return.
    assert.equal((await t().call('DELETE', `/api/3/facturaproveedores/${professional}`)).status, 200);
    const less = (await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=4T')).body.casillas;
    assert.deepEqual([less['28'], less['29'], less['46']], [2500, 514, 227.1]);
  });

  it('settles a quarter: the entry clears the VAT accounts, a negative result carries to the next quarter\'s 110/78/87, the period is locked until undone', async () => {
    const lines = async (idasiento: number) => ((await t().call('GET', `/api/3/partidas?filter[idasiento]=${idasiento}&sort[codsubcuenta]=ASC&limit=100`)).body as any[]).map((row) => [row.codsubcuenta, row.debe, row.haber]);
    await purchase(t(), 'Q1', '2026-02-10', [{ pvpunitario: 1000, codimpuesto: 'IVA21' }]);
    const first = await t().call('POST', '/api/3/liquidarIVA', { codejercicio: '2026', periodo: '1T' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.resultado, first.body.acompensar, first.body.casillas['71']], [-210, 210, -210]);
    assert.deepEqual(await lines(first.body.idasiento), [['4700000000', 210, 0], ['4720000021', 0, 210]], 'input VAT cleared, a claim on the tax authority');
    // The second quarter offsets its positive result with what the first carries.
    const second = (await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=2T')).body;
    const output = second.casillas['27'];
    assert.ok(output > 0 && output < 210, `2T's result ${output}`);
    assert.deepEqual([second.casillas['110'], second.casillas['78'], second.casillas['87'], second.casillas['71'], second.tipodeclaracion], [210, output, Math.round((210 - output) * 100) / 100, 0, 'N']);
    const settled = await t().call('POST', '/api/3/liquidarIVA', { codejercicio: '2026', periodo: '2T' });
    assert.equal(settled.status, 200, JSON.stringify(settled.body));
    assert.equal(settled.body.acompensar, Math.round((210 - output) * 100) / 100);
    const entry = await lines(settled.body.idasiento);
    assert.equal(entry.reduce((sum, [, debe]) => sum + Math.round(debe * 100), 0), entry.reduce((sum, [, , haber]) => sum + Math.round(haber * 100), 0), 'balanced');
    assert.deepEqual(entry.find(([code]) => code === '4750000000'), ['4750000000', 0, output], 'output VAT owed to the tax authority');
    assert.equal((await t().call('POST', '/api/3/liquidarIVA', { codejercicio: '2026', periodo: '2T' })).body.fields.periodo, 'already-settled');

    // Locked: no invoice of the period is created, changed or deleted.
    const locked = await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'Q1', fecha: '2026-05-15', lineas: [{ descripcion: 'Tarde', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    assert.deepEqual([locked.status, locked.body.message], [422, 'period-locked'], JSON.stringify(locked.body));
    const [inside] = (await t().call('GET', '/api/3/facturaclientes?filter[fecha]=2026-06-01&limit=1')).body;
    assert.equal((await t().call('PUT', `/api/3/editarFacturaCliente/${inside.idfactura}`, { lineas: [{ descripcion: 'Otra', pvpunitario: 99, codimpuesto: 'IVA21' }] })).body.message, 'period-locked');
    assert.equal((await t().call('PATCH', `/api/3/facturaclientes/${inside.idfactura}`, { observaciones: 'nota' })).status, 200, 'what the return did not take still changes');
    assert.equal((await t().call('DELETE', `/api/3/facturaclientes/${inside.idfactura}`)).body.message, 'period-locked');

    // The VAT day decides: dated in the locked quarter but received after it is the next quarter's; moved into it, refused.
    const receivedAnswer = await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'Q3', fecha: '2026-03-30', fecharecepcion: '2026-07-05', lineas: [{ descripcion: 'Compra', cantidad: 1, pvpunitario: 10, codimpuesto: 'IVA21' }] });
    assert.equal(receivedAnswer.status, 200, JSON.stringify(receivedAnswer.body));
    const received = receivedAnswer.body.doc.idfactura;
    // Its entry, dated in the locked quarter, is refused: the invoice is written unposted, with the reason (its commit run again, rounds apart).
    assert.equal(receivedAnswer.body.doc.idasiento, null);
    assert.deepEqual(receivedAnswer.body.warnings?.map((w: any) => [w.resource, w.id]), [['facturaproveedor', received]], JSON.stringify(receivedAnswer.body.warnings));
    assert.equal((await t().call('GET', `/api/3/facturaproveedores/${received}`)).body.idasiento, null);
    assert.equal((await t().call('PATCH', `/api/3/facturaproveedores/${received}`, { fecharecepcion: '2026-05-05' })).body.message, 'period-locked');
    const moved = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'T1', fecha: '2026-11-20', fechadevengo: '2026-05-20', lineas: [{ descripcion: 'x', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    assert.deepEqual([moved.status, moved.body.message], [422, 'period-locked'], 'accrued in the locked quarter');
    // The lock row is the settlement's: only undoing the settlement unlocks it.
    assert.equal((await t().call('PATCH', `/api/3/regularizacionimpuestos/${first.body.idregiva}`, { bloquear: false })).body.fields?.idregiva, 'use-liquidarIVA');
    assert.equal((await t().call('DELETE', `/api/3/regularizacionimpuestos/${first.body.idregiva}`)).body.fields?.idregiva, 'use-liquidarIVA');
    // Settled in order: the fourth quarter waits for the third.
    assert.equal((await t().call('POST', '/api/3/liquidarIVA', { codejercicio: '2026', periodo: '4T' })).body.fields?.periodo, 'previous-not-settled');

    // Undone newest first: the entry goes, the period opens.
    assert.equal((await t().call('DELETE', `/api/3/liquidarIVA/${first.body.idliquidacion}`)).body.fields?.periodo, 'later-settlement');
    assert.equal((await t().call('DELETE', `/api/3/liquidarIVA/${settled.body.idliquidacion}`)).status, 200);
    assert.equal((await t().call('GET', `/api/3/asientos/${settled.body.idasiento}`)).status, 404);
    const late = await t().call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'Q1', fecha: '2026-05-15', lineas: [{ descripcion: 'Tarde', pvpunitario: 10, codimpuesto: 'IVA21' }] });
    assert.equal(late.status, 200, JSON.stringify(late.body));
  });

  it('declares in the 347 the parties above 3,005.06 EUR a year, VAT included, by quarter; the 349 by operator and key', async () => {
    await sale(t(), 'T5', '2026-11-20', [{ pvpunitario: 2483.53, codimpuesto: 'IVA21' }]);
    await sale(t(), 'T6', '2026-11-20', [{ pvpunitario: 2483.52, codimpuesto: 'IVA21' }]);
    await purchase(t(), 'Q1', '2026-11-21', [{ pvpunitario: 1500, codimpuesto: 'IVA21' }]);
    const answer = await t().call('GET', '/api/3/modelo347?codejercicio=2026');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.umbral, 3005.06);
    assert.deepEqual(answer.body.declarados.map((row: any) => [row.clave, row.cifnif, row.nombre, row.importe, row.trimestres]), [
      ['B', 'X1234567L', 'Justo encima', 3005.07, [0, 0, 0, 3005.07]],
      ['A', 'A28000032', 'Proveedor nacional', 3570.6, [1210, 12.1, 0, 2348.5]],
    ], 'one cent under is not declared; intra-EU, exports, IRPF invoices and the purchase received next year are left out');

    const intra = await t().call('GET', '/api/3/modelo349?codejercicio=2026&periodo=4T');
    assert.equal(intra.status, 200, JSON.stringify(intra.body));
    assert.deepEqual(intra.body.operaciones.map((row: any) => [row.clave, row.cifnif, row.base]), [['A', 'DE129273398', 1000], ['E', 'FR40303265045', 500]]);
    assert.deepEqual((await t().call('GET', '/api/3/modelo349?codejercicio=2026&periodo=3T')).body.operaciones, []);
    assert.equal((await t().call('GET', '/api/3/modelo347')).body.fields.codejercicio, 'required');
  });

  it('sums the year\'s 303s box by box into the 390', async () => {
    const quarters = await Promise.all(['1T', '2T', '3T', '4T'].map(async (periodo) => (await t().call('GET', `/api/3/modelo303?codejercicio=2026&periodo=${periodo}`)).body.casillas));
    const annual = await t().call('GET', '/api/3/modelo390?codejercicio=2026');
    assert.equal(annual.status, 200, JSON.stringify(annual.body));
    const sum = (box: string) => Math.round(quarters.reduce((total, casillas) => total + Math.round(casillas[box] * 100), 0)) / 100;
    const pairs: Array<[string, string]> = [['01', '01'], ['02', '03'], ['03', '04'], ['04', '06'], ['05', '07'], ['06', '09'], ['27', '12'], ['28', '13'], ['29', '14'], ['30', '15'],
      ['601', '22'], ['602', '24'], ['47', '27'], ['48', '28'], ['49', '29'], ['639', '40'], ['62', '41'], ['64', '45'], ['65', '46'], ['103', '59'], ['104', '60']];
    for (const [box390, box303] of pairs) assert.equal(annual.body.casillas[box390], sum(box303), `390 [${box390}] = the 303s' [${box303}]`);
    assert.deepEqual([annual.body.casillas['25'], annual.body.casillas['26'], annual.body.casillas['56'], annual.body.casillas['57']], [1000, 210, 1000, 210], 'intra-EU acquisitions at 21 %');
    assert.deepEqual(annual.body.liquidaciones, [{ periodo: '1T', resultado: -210, acompensar: 210 }]);
  });

  it('writes the missing tax rows of older invoices once per company, however many returns ask at once, and then never looks again', async () => {
    // Accrued in 4T, dated in the next year: the return reads it by its VAT day.
    await sale(t(), 'T1', '2027-01-05', [{ pvpunitario: 1000, codimpuesto: 'IVA21' }], { fechadevengo: '2026-12-20' });
    const before = (await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=4T')).body.casillas;
    const db = t().app.ctx.database.kysely;
    const rows = async () => (await db.selectFrom('facturas_impuestos').select(['idfacturacli', 'codimpuesto', 'base', 'cuota']).where('idfacturacli', 'is not', null).orderBy('idfacturacli').orderBy('codimpuesto').execute())
      .map((row) => `${row.idfacturacli} ${row.codimpuesto} ${Number(row.base)} ${Number(row.cuota)}`);
    const kept = await rows();
    assert.ok(kept.length > 10);
    // As an installation upgraded from before the module: sales without rows, the company not recorded as complete.
    await db.deleteFrom('facturas_impuestos').where('idfacturacli', 'is not', null).execute();
    await db.deleteFrom('facturas_impuestos_completos').execute();
    await withOtherInstance(t(), async (other) => {
      const answers = await Promise.all([1, 2, 3].map(() => other.call('GET', '/api/3/modelo303?codejercicio=2026&periodo=4T')));
      for (const answer of answers) assert.deepEqual(answer.body.casillas, before, JSON.stringify(answer.body));
      // Every invoice of the company filled, each once, as its own write had written them.
      assert.deepEqual(await rows(), kept, 'the whole company filled, no invoice\'s rows written twice');
      assert.equal((await db.selectFrom('facturas_impuestos_completos').select('idempresa').execute()).length, 1, 'the company recorded as complete');
      // From then on a return reads no invoice for rows it might lack: nor does another form, nor a new instance.
      const looks = async (app: TestApp, url: string) => {
        const seen = await observe(app, () => app.call('GET', url));
        assert.equal(seen.value.status, 200, JSON.stringify(seen.value.body));
        return seen.statements.filter((text) => /facturas_impuestos_completos|not exists/.test(text));
      };
      assert.deepEqual(await looks(other, '/api/3/modelo303?codejercicio=2026&periodo=3T'), []);
      assert.deepEqual(await looks(other, '/api/3/modelo390?codejercicio=2026'), []);
      await withOtherInstance(t(), async (third) => {
        assert.deepEqual(await looks(third, '/api/3/modelo303?codejercicio=2026&periodo=4T'), [`select ${third.engine === 'mysql' ? '`idempresa`' : '"idempresa"'} from ${third.engine === 'mysql' ? '`facturas_impuestos_completos`' : '"facturas_impuestos_completos"'} where ${third.engine === 'mysql' ? '`idempresa`' : '"idempresa"'} = ${third.engine === 'postgres' ? '$1' : '?'}`]);
        assert.deepEqual(await looks(third, '/api/3/modelo303?codejercicio=2026&periodo=4T'), []);
      });
    });
  });

  it('rewrites an invoice\'s tax rows only when what they are made of changes', async () => {
    const id = await sale(t(), 'T1', '2027-01-10', [{ pvpunitario: 100, codimpuesto: 'IVA21' }]);
    const db = t().app.ctx.database.kysely;
    const ids = async () => (await db.selectFrom('facturas_impuestos').select('id').where('idfacturacli', '=', id).orderBy('id').execute()).map((row) => Number(row.id));
    const first = await ids();
    assert.equal(first.length, 1, 'its one row, written with it');
    // Notes, and paying it, leave its rows as they were (not deleted and written again).
    assert.equal((await t().call('PUT', `/api/3/editarFacturaCliente/${id}`, { observaciones: 'Nota' })).status, 200);
    assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${id}`, { pagada: true })).status, 200);
    assert.deepEqual(await ids(), first);
    // A line's tax that leaves every total as it was still rewrites them: IVA21 to another code at 21 %.
    const tax = await t().call('POST', '/api/3/impuesto', { codimpuesto: 'IVA21B', descripcion: 'IVA 21 bis', iva: 21 });
    assert.equal(tax.status, 201, JSON.stringify(tax.body));
    const other = await sale(t(), 'T1', '2027-01-11', [{ pvpunitario: 100, codimpuesto: 'IVA21' }]);
    const line = (await t().call('GET', `/api/3/lineafacturacliente?filter[idfactura]=${other}`)).body[0];
    assert.equal((await t().call('PATCH', `/api/3/lineafacturacliente/${line.idlinea}`, { codimpuesto: 'IVA21B' })).status, 200);
    const codes = await db.selectFrom('facturas_impuestos').select('codimpuesto').where('idfacturacli', '=', other).execute();
    assert.deepEqual(codes.map((row) => row.codimpuesto), ['IVA21B']);
  });

  it('locks a settled period for its own company only: another company posts, pays and settles the same quarter', async () => {
    // 1T 2026 is settled and locked for company 1 (above): its entries are refused...
    const own = await t().call('POST', '/api/3/asientos', { codejercicio: '2026', fecha: '2026-02-15', concepto: 'Manual' });
    assert.deepEqual([own.status, own.body.fields?.fecha], [422, 'locked'], JSON.stringify(own.body));
    // ...a second company's books are not: its year, its invoice with its entry, its payment, its own settlement.
    const company = await t().call('POST', '/api/3/empresa', { nombre: 'Otra SL', cifnif: 'B76365782' });
    assert.equal(company.status, 201, JSON.stringify(company.body));
    const idempresa = company.body.idempresa;
    assert.equal((await t().call('POST', '/api/3/almacen', { codalmacen: 'OTR', nombre: 'Otra', idempresa })).status, 201);
    const year = await t().call('POST', '/api/3/ejercicio', { codejercicio: 'O26', nombre: 'Otra 2026', fechainicio: '2026-01-01', fechafin: '2026-12-31', idempresa });
    assert.equal(year.status, 201, JSON.stringify(year.body));
    const answer = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'T1', codalmacen: 'OTR', fecha: '2026-02-15', lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }] });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual([answer.body.doc.idempresa, answer.body.doc.codejercicio], [idempresa, 'O26']);
    assert.ok(answer.body.doc.idasiento, 'posted in its own year');
    // Its customer now has its sub-account in the year: the next invoice's writes go with the read after the locks.
    const again = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'T1', codalmacen: 'OTR', fecha: '2026-02-16', lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 50, codimpuesto: 'IVA21' }] });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.ok(again.body.doc.idasiento, 'posted');
    assert.equal((await t().call('GET', `/api/3/facturaclientes/${again.body.doc.idfactura}`)).body.idasiento, again.body.doc.idasiento);
    assert.equal((await t().call('GET', `/api/3/partidas?filter[idasiento]=${again.body.doc.idasiento}&limit=10`)).body.length, 3, 'its lines on its own entry');
    const paid = await t().call('POST', `/api/3/pagarFacturaCliente/${answer.body.doc.idfactura}`, { pagada: true });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const manual = await t().call('POST', '/api/3/asientos', { codejercicio: 'O26', fecha: '2026-02-15', concepto: 'Manual' });
    assert.equal(manual.status, 201, JSON.stringify(manual.body));
    const settled = await t().call('POST', '/api/3/liquidarIVA', { codejercicio: 'O26', periodo: '1T', idempresa });
    assert.equal(settled.status, 200, JSON.stringify(settled.body));
    assert.equal(settled.body.resultado, 31.5, 'its own sales only');
    // Now locked for it too, and undone for it alone: company 1's quarter stays locked.
    assert.equal((await t().call('POST', '/api/3/asientos', { codejercicio: 'O26', fecha: '2026-03-01', concepto: 'Tarde' })).body.fields?.fecha, 'locked');
    assert.equal((await t().call('DELETE', `/api/3/liquidarIVA/${settled.body.idliquidacion}`)).status, 200);
    assert.equal((await t().call('POST', '/api/3/asientos', { codejercicio: '2026', fecha: '2026-03-01', concepto: 'Tarde' })).body.fields?.fecha, 'locked');
  });

  it('settles one quarter for two companies the other way round: the second company first, then the first, each locking only its own books', async () => {
    const box07 = async () => {
      const form = await t().call('GET', '/api/3/modelo303?codejercicio=2026&periodo=2T');
      assert.equal(form.status, 200, JSON.stringify(form.body));
      return form.body.casillas as Record<string, number>;
    };
    const before = await box07();
    const company = await t().call('POST', '/api/3/empresa', { nombre: 'Tercera SL', cifnif: 'B65321580' });
    assert.equal(company.status, 201, JSON.stringify(company.body));
    const idempresa = company.body.idempresa;
    assert.equal((await t().call('POST', '/api/3/almacen', { codalmacen: 'TER', nombre: 'Tercera', idempresa })).status, 201);
    assert.equal((await t().call('POST', '/api/3/ejercicio', { codejercicio: 'T26', nombre: 'Tercera 2026', fechainicio: '2026-01-01', fechafin: '2026-12-31', idempresa })).status, 201);
    const answer = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'T1', codalmacen: 'TER', fecha: '2026-05-10', lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 200, codimpuesto: 'IVA21' }] });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.ok(answer.body.doc.idasiento, 'posted in its own year');
    // The third company settles 2T first: company 1's 2T stays open to it.
    const third = await t().call('POST', '/api/3/liquidarIVA', { codejercicio: 'T26', periodo: '2T', idempresa });
    assert.equal(third.status, 200, JSON.stringify(third.body));
    assert.equal(third.body.resultado, 42, 'its own sales only');
    assert.ok(third.body.idasiento, 'its settlement entry');
    const own = await t().call('POST', '/api/3/asientos', { codejercicio: '2026', fecha: '2026-05-20', concepto: 'Manual' });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    // Company 1's own invoice accrued in 2T is still taken.
    const sale2T = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'T1', fecha: '2027-01-20', fechadevengo: '2026-06-15', lineas: [{ descripcion: 'Venta', cantidad: 1, pvpunitario: 10, codimpuesto: 'IVA21' }] });
    assert.equal(sale2T.status, 200, JSON.stringify(sale2T.body));
    // Company 1's return: its own sale added (10 at 21 %), nothing of the third company's 200.
    const casillas = await box07();
    assert.deepEqual(['07', '09'].map((box) => Math.round((casillas[box]! - before[box]!) * 100) / 100), [10, 2.1]);
    // Then company 1 settles the same quarter, its entry included.
    const first = await t().call('POST', '/api/3/liquidarIVA', { codejercicio: '2026', periodo: '2T' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.ok(first.body.idasiento, 'its settlement entry, not refused by the other company\'s lock');
    assert.equal(first.body.resultado, casillas['71'], 'what its return says');
    // Both locked now, each for its own company; undoing company 1's leaves the third's locked.
    for (const codejercicio of ['2026', 'T26']) assert.equal((await t().call('POST', '/api/3/asientos', { codejercicio, fecha: '2026-06-01', concepto: 'Tarde' })).body.fields?.fecha, 'locked', codejercicio);
    assert.equal((await t().call('DELETE', `/api/3/liquidarIVA/${first.body.idliquidacion}`)).status, 200);
    assert.equal((await t().call('POST', '/api/3/asientos', { codejercicio: '2026', fecha: '2026-06-01', concepto: 'Tarde' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/asientos', { codejercicio: 'T26', fecha: '2026-06-01', concepto: 'Tarde' })).body.fields?.fecha, 'locked');
  });

  it('refuses a bad period by name', async () => {
    for (const [query, field, reason] of [
      ['periodo=4T', 'codejercicio', 'required'], ['codejercicio=2026', 'periodo', 'required'], ['codejercicio=2026&periodo=5T', 'periodo', 'invalid-value'],
      ['codejercicio=2026&periodo=13', 'periodo', 'invalid-value'], ['codejercicio=1999&periodo=1T', 'codejercicio', 'not-found'], ['codejercicio=2026&periodo=1T&idempresa=x', 'idempresa', 'invalid-integer'],
    ] as const) {
      const answer = await t().call('GET', `/api/3/modelo303?${query}`);
      assert.deepEqual([answer.status, answer.body.fields?.[field]], [422, reason], `${query}: ${JSON.stringify(answer.body)}`);
    }
  });
}, { clock });
