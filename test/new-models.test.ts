import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { isIban, isSwift } from '../src/models/record-rules.ts';
import { enabledEngines, scratchDatabase } from './helpers/engines.ts';
import { forEachEngine, startTestApp } from './helpers/test-app.ts';

/**
 * The rules of the models added for the rest of the reference installation: bank accounts
 * (IBAN, SWIFT/BIC, main account), the chart of accounts (sub-account codes against the year's
 * length, balances), accounting entries, attribute values, their foreign keys, and the default
 * data that came with them.
 */

const year = new Date().getUTCFullYear();

it('checks IBANs by ISO 13616 check digits and SWIFT/BIC codes by their ISO 9362 shape', () => {
  for (const iban of ['ES9121000418450200051332', 'ES91 2100 0418 4502 0005 1332', 'GB82WEST12345698765432', 'de89370400440532013000']) assert.ok(isIban(iban), iban);
  for (const iban of ['ES9121000418450200051333', 'ES91', 'XX00', '1234567890123456', 'ES91-2100-0418-4502-0005-1332']) assert.ok(!isIban(iban), iban);
  for (const swift of ['CAIXESBBXXX', 'DEUTDEFF', 'bsabesbb']) assert.ok(isSwift(swift), swift);
  for (const swift of ['CAIXES', 'CAIX1SBB', 'CAIXESBBXX', 'CAIXESBB-XX']) assert.ok(!isSwift(swift), swift);
});

forEachEngine('models of the rest of the reference installation', (t) => {
  const post = (resource: string, body: Record<string, unknown>) => t().call('POST', `/api/3/${resource}`, body);
  const get = (path: string) => t().call('GET', `/api/3/${path}`);
  const expectFields = (response: { status: number; body: any }, fields: Record<string, string>) => {
    assert.equal(response.status, 422, JSON.stringify(response.body));
    for (const [field, reason] of Object.entries(fields)) assert.equal(response.body.fields?.[field], reason, `${field}: ${JSON.stringify(response.body)}`);
  };

  it('brings the default data: 25 currencies, 52 provinces, journals, special accounts, print formats', async () => {
    const currencies = (await get('divisas?limit=100')).body as Array<Record<string, any>>;
    assert.equal(currencies.length, 25);
    const rate = Object.fromEntries(currencies.map((c) => [c.coddivisa, c.tasaconv]));
    assert.deepEqual([rate.EUR, rate.GBP, rate.USD, rate.BTC, rate.MXN, rate.XAF], [1, 0.865, 1.129, 0.0001, 23.3678, 655.957]);
    assert.equal((await get('provincias?filter[codpais]=ESP&limit=100')).body.length, 52);
    assert.deepEqual((await get('diarios')).body.map((d: any) => [d.iddiario, d.descripcion]), [
      [1, 'Principal'], [2, 'Diario de Facturas'], [3, 'Cartera de pagos'], [4, 'Cartera de cobros'],
    ]);
    const special = (await get('cuentaespeciales?limit=100')).body.map((c: any) => c.codcuentaesp);
    assert.equal(special.length, 38);
    for (const code of ['CLIENT', 'PROVEE', 'IVAREP', 'IVASOP', 'IRPF', 'CAJA', 'BANCO']) assert.ok(special.includes(code), code);
    const formats = (await get('formatodocumentos?sort[id]=ASC')).body.map((f: any) => [f.codserie, f.nombre, f.tipodoc, f.titulo, f.idempresa]);
    assert.deepEqual(formats, [
      ['R', 'Rectificativa', 'FacturaCliente', 'Factura Rectificativa', 1],
      ['S', 'Simplificada', 'FacturaCliente', 'Factura Simplificada', 1],
      ['A', 'Proforma', 'PresupuestoCliente', null, 1],
    ]);
    // No published list of entry concepts: none are seeded.
    assert.deepEqual((await get('conceptopartidas')).body, []);
  });

  it('checks bank accounts: numeric code, IBAN (unless validate_iban is off), SWIFT/BIC, one main account', async () => {
    assert.equal((await post('cliente', { codcliente: 'BANKC', nombre: 'Bank customer', cifnif: 'B1' })).status, 201);
    const first = await post('cuentabancocliente', { codcliente: 'BANKC', descripcion: 'Main', iban: 'ES91 2100 0418 4502 0005 1332', swift: 'CAIXESBBXXX' });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.match(first.body.codcuenta, /^[0-9]+$/);
    assert.equal(first.body.principal, true);
    assert.notEqual(first.body.fmandato, null, 'the mandate date defaults to the day of creation');
    expectFields(await post('cuentabancocliente', { codcliente: 'BANKC', iban: 'ES9121000418450200051333' }), { iban: 'invalid-iban' });
    expectFields(await post('cuentabancocliente', { codcliente: 'BANKC', swift: 'CAIX-ES' }), { swift: 'invalid-swift' });
    expectFields(await post('cuentabancocliente', { codcuenta: 'ABC', codcliente: 'BANKC' }), { codcuenta: 'invalid-code' });
    expectFields(await t().call('PATCH', `/api/3/cuentabancocliente/${first.body.codcuenta}`, { iban: 'ES00 1234' }), { iban: 'invalid-iban' });
    assert.equal((await post('cuentabancocliente', { codcliente: 'BANKC', iban: '', swift: '' })).status, 201, 'empty values pass');

    // A new main account unmarks the others of the same customer.
    const second = await post('cuentabancocliente', { codcliente: 'BANKC', descripcion: 'Second', iban: 'GB82WEST12345698765432', principal: true });
    assert.equal(second.status, 201);
    const accounts = (await get('cuentabancoclientes?filter[codcliente]=BANKC')).body as Array<Record<string, any>>;
    assert.deepEqual(accounts.filter((a) => a.principal).map((a) => a.codcuenta), [second.body.codcuenta]);

    // With validate_iban off, a wrong IBAN is stored; the SWIFT/BIC shape is still checked.
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { validate_iban: false } })).status, 200);
    try {
      assert.equal((await post('cuentabancocliente', { codcliente: 'BANKC', iban: 'ES9121000418450200051333' })).status, 201);
      expectFields(await post('cuentabancocliente', { codcliente: 'BANKC', swift: 'X' }), { swift: 'invalid-swift' });
    } finally {
      await t().call('PUT', '/api/3/settings/default', { properties: { validate_iban: true } });
    }

    // The same rules for suppliers; accounts go with their owner.
    assert.equal((await post('proveedor', { codproveedor: 'BANKP', nombre: 'Bank supplier', cifnif: 'B2' })).status, 201);
    expectFields(await post('cuentabancoproveedor', { codproveedor: 'BANKP', iban: 'ES12' }), { iban: 'invalid-iban' });
    const supplierAccount = await post('cuentabancoproveedores', { codproveedor: 'BANKP', iban: 'DE89370400440532013000' });
    assert.equal(supplierAccount.status, 201);
    assert.equal((await t().call('DELETE', '/api/3/proveedor/BANKP')).status, 200);
    assert.equal((await get(`cuentabancoproveedor/${supplierAccount.body.codcuenta}`)).status, 404);
    assert.equal((await t().call('DELETE', '/api/3/cliente/BANKC')).status, 200);
    assert.deepEqual((await get('cuentabancoclientes?filter[codcliente]=BANKC')).body, []);
  });

  // Codes the default chart (imported into the current year) does not have.
  it('checks sub-account codes against the fiscal year: digits, its longsubcuenta, dotted shorthand', async () => {
    const account = await post('cuenta', { codcuenta: '439', codejercicio: String(year), descripcion: 'Clientes' });
    assert.equal(account.status, 201, JSON.stringify(account.body));
    const base = { codejercicio: String(year), idcuenta: account.body.idcuenta, descripcion: 'Cliente' };
    expectFields(await post('subcuenta', { ...base, codsubcuenta: '439000001' }), { codsubcuenta: 'out-of-range' });
    expectFields(await post('subcuenta', { ...base, codsubcuenta: '43900000AB' }), { codsubcuenta: 'invalid-code' });
    const dotted = await post('subcuenta', { ...base, codsubcuenta: '439.1' });
    assert.equal(dotted.status, 201, JSON.stringify(dotted.body));
    assert.equal(dotted.body.codsubcuenta, '4390000001');
    assert.equal(dotted.body.codcuenta, '439', 'the account code follows the account');
    // The account may be named by its code within the year instead of its id.
    const byCode = await post('subcuenta', { codejercicio: String(year), codcuenta: '439', codsubcuenta: '4390000002', descripcion: 'Otro' });
    assert.equal(byCode.status, 201);
    assert.equal(byCode.body.idcuenta, account.body.idcuenta);
    expectFields(await post('subcuenta', { codejercicio: String(year), codcuenta: '999', codsubcuenta: '9990000001', descripcion: 'x' }), { codcuenta: 'not-found' });
    expectFields(await post('subcuenta', { ...base, codsubcuenta: '4390000003', descripcion: '  ' }), { descripcion: 'required' });
    expectFields(await post('cuenta', { codcuenta: '4319', codejercicio: String(year) }), { descripcion: 'required' });
    // A year with a shorter code length takes shorter codes.
    const short = await post('ejercicio', { codejercicio: 'S6', nombre: 'Short', fechainicio: '1991-01-01', fechafin: '1991-12-31', longsubcuenta: 6, idempresa: 1 });
    assert.equal(short.status, 201, JSON.stringify(short.body));
    const shortAccount = await post('cuenta', { codcuenta: '579', codejercicio: 'S6', descripcion: 'Bancos' });
    assert.equal((await post('subcuenta', { codejercicio: 'S6', idcuenta: shortAccount.body.idcuenta, codsubcuenta: '579.1', descripcion: 'Banco' })).body.codsubcuenta, '579001');
    expectFields(await post('subcuenta', { codejercicio: 'S6', idcuenta: shortAccount.body.idcuenta, codsubcuenta: '5720000001', descripcion: 'x' }), { codsubcuenta: 'out-of-range' });
    // A closed year refuses changes to its chart.
    const closed = await post('ejercicio', { codejercicio: 'C92', nombre: 'Closed', fechainicio: '1992-01-01', fechafin: '1992-12-31', estado: 'CERRADO', idempresa: 1 });
    assert.equal(closed.status, 201, JSON.stringify(closed.body));
    const refused = await post('cuenta', { codcuenta: '100', codejercicio: 'C92', descripcion: 'Capital' });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.message, 'exercise-closed');
  });

  it('numbers entries per year, keeps sub-account balances from the lines, and guards non-editable entries', async () => {
    const account = await post('cuenta', { codcuenta: '579', codejercicio: String(year), descripcion: 'Caja' });
    const cash = (await post('subcuenta', { codejercicio: String(year), idcuenta: account.body.idcuenta, codsubcuenta: '5790000001', descripcion: 'Caja' })).body;
    const sales = (await post('subcuenta', { codejercicio: String(year), codcuenta: '579', codsubcuenta: '5790000002', descripcion: 'Caja 2' })).body;
    expectFields(await post('asiento', { codejercicio: String(year) }), { concepto: 'required' });
    // The year comes from the date when it is not given.
    const first = await post('asiento', { concepto: 'Apertura', fecha: `${year}-02-01` });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.codejercicio, String(year));
    assert.equal(first.body.editable, true);
    const second = await post('asiento', { concepto: 'Venta', codejercicio: String(year), numero: 77 });
    assert.equal(second.body.numero, first.body.numero + 1, 'numbered within the year, whatever was sent');

    const line = (body: Record<string, unknown>) => post('partida', { idasiento: second.body.idasiento, concepto: 'Venta', ...body });
    const debit = await line({ codsubcuenta: cash.codsubcuenta, debe: 100 });
    assert.equal(debit.status, 201, JSON.stringify(debit.body));
    assert.equal(debit.body.idsubcuenta, cash.idsubcuenta, 'the sub-account id comes from its code');
    const credit = await line({ idsubcuenta: sales.idsubcuenta, haber: 100, codcontrapartida: cash.codsubcuenta });
    assert.equal(credit.body.codsubcuenta, sales.codsubcuenta, 'the code comes from the id');
    assert.equal(credit.body.idcontrapartida, cash.idsubcuenta);
    expectFields(await line({ codsubcuenta: '5709999999', debe: 1 }), { codsubcuenta: 'not-found' });
    const balance = async (id: number) => {
      const { debe, haber, saldo } = (await get(`subcuenta/${id}`)).body;
      return [debe, haber, saldo];
    };
    assert.deepEqual(await balance(cash.idsubcuenta), [100, 0, 100]);
    assert.deepEqual(await balance(sales.idsubcuenta), [0, 100, -100]);
    await t().call('PATCH', `/api/3/partida/${debit.body.idpartida}`, { debe: 40 });
    assert.deepEqual(await balance(cash.idsubcuenta), [40, 0, 40]);
    // A sub-account with lines cannot go (RESTRICT); its account cannot either.
    assert.equal((await t().call('DELETE', `/api/3/subcuenta/${cash.idsubcuenta}`)).status, 409);
    assert.equal((await t().call('DELETE', `/api/3/cuenta/${account.body.idcuenta}`)).status, 409);

    // Not editable: no change nor deletion until it is made editable again.
    assert.equal((await t().call('PATCH', `/api/3/asiento/${second.body.idasiento}`, { editable: false })).status, 200);
    expectFields(await t().call('PATCH', `/api/3/asiento/${second.body.idasiento}`, { concepto: 'Otra' }), { editable: 'locked' });
    expectFields(await t().call('DELETE', `/api/3/asiento/${second.body.idasiento}`), { editable: 'locked' });
    expectFields(await t().call('PATCH', `/api/3/asiento/${second.body.idasiento}`, { codejercicio: 'S6', editable: true }), { codejercicio: 'read-only' });
    assert.equal((await t().call('PATCH', `/api/3/asiento/${second.body.idasiento}`, { editable: true })).status, 200);
    // Deleting the entry deletes its lines and the balances follow.
    assert.equal((await t().call('DELETE', `/api/3/asiento/${second.body.idasiento}`)).status, 200);
    assert.deepEqual((await get(`partidas?filter[idasiento]=${second.body.idasiento}`)).body, []);
    assert.deepEqual(await balance(cash.idsubcuenta), [0, 0, 0]);
    // Without lines, deleting the account deletes its sub-accounts (CASCADE).
    assert.equal((await t().call('DELETE', `/api/3/cuenta/${account.body.idcuenta}`)).status, 200);
    assert.equal((await get(`subcuenta/${sales.idsubcuenta}`)).status, 404);
  });

  it('keeps attribute values inside their attribute: required names, description, uniqueness, cascade', async () => {
    expectFields(await post('atributo', { nombre: ' ' }), { nombre: 'required' });
    expectFields(await post('atributo', { codatributo: 'BAD CODE', nombre: 'x' }), { codatributo: 'invalid-code' });
    const colour = await post('atributo', { nombre: 'Color' });
    assert.equal(colour.status, 201);
    assert.match(colour.body.codatributo, /^[0-9]+$/);
    assert.equal(colour.body.num_selector, 0);
    const red = await post('atributovalor', { codatributo: colour.body.codatributo, valor: 'Rojo' });
    assert.equal(red.status, 201, JSON.stringify(red.body));
    assert.deepEqual([red.body.descripcion, red.body.orden], ['Color Rojo', 100]);
    const renamed = await t().call('PATCH', `/api/3/atributovalor/${red.body.id}`, { valor: 'Granate' });
    assert.equal(renamed.body.descripcion, 'Color Granate');
    expectFields(await t().call('PATCH', `/api/3/atributovalor/${red.body.id}`, { descripcion: 'x' }), { descripcion: 'read-only' });
    expectFields(await post('atributovalor', { codatributo: colour.body.codatributo, valor: '' }), { valor: 'required' });
    expectFields(await post('atributovalor', { codatributo: colour.body.codatributo }), { valor: 'required' });
    assert.equal((await post('atributovalor', { codatributo: colour.body.codatributo, valor: 'Granate' })).status, 409, 'unique within the attribute');
    assert.equal((await post('atributovalor', { codatributo: 'NOPE', valor: 'Rojo' })).status, 422, 'the attribute must exist');
    assert.equal((await t().call('DELETE', `/api/3/atributo/${colour.body.codatributo}`)).status, 200);
    assert.equal((await get(`atributovalor/${red.body.id}`)).status, 404, 'values go with their attribute');
  });

  it('applies the reference ON DELETE rules of the other new tables', async () => {
    const province = await post('provincia', { codpais: 'ESP', provincia: 'Provincia de prueba' });
    const city = await post('ciudad', { idprovincia: province.body.idprovincia, ciudad: 'Villa' });
    assert.equal(city.status, 201, JSON.stringify(city.body));
    const zip = await post('codigopostal', { codpais: 'ESP', idprovincia: province.body.idprovincia, idciudad: city.body.idciudad, number: 28001 });
    assert.equal(zip.status, 201, JSON.stringify(zip.body));
    assert.equal((await post('ciudad', { idprovincia: province.body.idprovincia, ciudad: 'Villa' })).status, 409);
    assert.equal((await t().call('DELETE', `/api/3/provincia/${province.body.idprovincia}`)).status, 200);
    assert.equal((await get(`ciudad/${city.body.idciudad}`)).status, 404);
    assert.equal((await get(`codigopostal/${zip.body.id}`)).status, 404);

    assert.equal((await post('user', { nick: 'tempuser', password: 'secret-123' })).status, 201);
    assert.equal((await post('role', { codrole: 'tester', descripcion: 'Testers' })).status, 201);
    const member = await post('roleuser', { codrole: 'tester', nick: 'tempuser' });
    const filter = await post('pagefilter', { name: 'ListCliente', description: 'Mine', nick: 'tempuser' });
    const mail = await post('emailsent', { nick: 'tempuser', subject: 'Hi' });
    assert.deepEqual([member.status, filter.status, mail.status], [201, 201, 201]);
    assert.equal((await t().call('DELETE', '/api/3/user/tempuser')).status, 200);
    assert.equal((await get(`roleuser/${member.body.id}`)).status, 404, 'CASCADE');
    assert.equal((await get(`pagefilter/${filter.body.id}`)).status, 404, 'CASCADE');
    assert.equal((await get(`emailsent/${mail.body.id}`)).body.nick, null, 'SET NULL');
    const access = await post('roleaccess', { codrole: 'tester', pagename: 'ListCliente' });
    assert.deepEqual([access.body.allowdelete, access.body.onlyownerdata], [true, false]);
    assert.equal((await t().call('DELETE', '/api/3/role/tester')).status, 200);
    assert.equal((await get(`roleaccess/${access.body.id}`)).status, 404, 'CASCADE');

    const serie = await post('serie', { codserie: 'FMT', descripcion: 'Formats' });
    const format = await post('formatodocumento', { codserie: 'FMT', tipodoc: 'FacturaCliente', titulo: 'Factura' });
    assert.deepEqual([serie.status, format.status, format.body.autoaplicar], [201, 201, true]);
    assert.equal((await t().call('DELETE', '/api/3/serie/FMT')).status, 200);
    assert.equal((await get(`formatodocumento/${format.body.id}`)).status, 404, 'CASCADE');

    const event = await post('workevent', { name: 'Model.Save' });
    assert.equal(event.status, 201);
    assert.match(event.body.creation_date, /\d/);
  });
});

for (const engine of enabledEngines()) {
  describe(`default data added later [${engine}]`, () => {
    let drop: (() => Promise<void>) | undefined;
    after(async () => drop?.());

    it('reaches a database that predates it, once, without touching the rows it already has', async () => {
      const scratch = await scratchDatabase(engine);
      drop = scratch.drop;
      const first = await startTestApp(engine, { url: scratch.url });
      try {
        // As if the database predated these seeds: no markers, some of their rows missing.
        await first.app.ctx.database.kysely.deleteFrom('schema_migrations').where('id', 'in', ['seed:currencies-2', 'seed:accounting-journals']).execute();
        assert.equal((await first.call('DELETE', '/api/3/divisa/BTC')).status, 200);
        assert.equal((await first.call('PUT', '/api/3/divisa/MXN', { tasaconv: 20 })).status, 200);
        assert.equal((await first.call('DELETE', '/api/3/diario/4')).status, 200);
      } finally {
        await first.close();
      }
      const second = await startTestApp(engine, { url: scratch.url });
      try {
        assert.deepEqual(second.app.seeded, ['currencies-2', 'accounting-journals']);
        const currencies = (await second.call('GET', '/api/3/divisas?limit=100')).body as Array<Record<string, any>>;
        assert.equal(currencies.length, 25);
        assert.equal(currencies.find((c) => c.coddivisa === 'MXN')!.tasaconv, 20, 'an existing row is kept as it is');
        assert.equal((await second.call('GET', '/api/3/diarios')).body.length, 4);
      } finally {
        await second.close();
      }
    });
  });
}
