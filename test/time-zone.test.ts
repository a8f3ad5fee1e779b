import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { BusinessClock, dayIn } from '../src/clock.ts';
import { forEachEngine } from './helpers/test-app.ts';

/** Business dates follow the installation's wall clock (setting `timezone`, default Europe/Madrid). */
it('reads instants on the wall clock of a zone, across midnight, year ends and summer time', () => {
  const cases: Array<[string, string, string, string]> = [
    ['2026-12-31T23:30:00Z', 'Europe/Madrid', '2027-01-01', '00:30:00'],
    ['2026-12-31T23:30:00Z', 'UTC', '2026-12-31', '23:30:00'],
    ['2027-01-01T00:30:00Z', 'America/Mexico_City', '2026-12-31', '18:30:00'],
    ['2026-07-15T22:15:00Z', 'Europe/Madrid', '2026-07-16', '00:15:00'], // summer time: UTC+2
    ['2026-03-29T00:59:59Z', 'Europe/Madrid', '2026-03-29', '01:59:59'],
    ['2026-03-29T01:00:00Z', 'Europe/Madrid', '2026-03-29', '03:00:00'], // the hour that does not exist
  ];
  for (const [instant, zone, date, time] of cases) assert.deepEqual(dayIn(Date.parse(instant), zone), { date, time }, `${instant} in ${zone}`);
  const clock = new BusinessClock({ now: () => Date.parse('2026-12-31T23:30:00Z') }, 'Europe/Madrid');
  assert.deepEqual(clock.today(), { date: '2027-01-01', time: '00:30:00' });
  assert.equal(clock.timestamp(), '2026-12-31 23:30:00', 'technical timestamps stay UTC');
});

const instant = { ms: Date.parse('2026-12-31T23:30:00Z') };
const clock = { now: () => instant.ms };

forEachEngine('business dates in the installation time zone', (t) => {
  // Each engine's suite starts at the same instant (the tests below move it).
  before(() => {
    instant.ms = Date.parse('2026-12-31T23:30:00Z');
  });

  it('dates an invoice made at 00:30 on 1 January in Madrid in the new fiscal year', async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'TZ', nombre: 'Time zone' })).status, 201);
    const invoice = await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'TZ', lineas: [{ descripcion: 'x', pvpunitario: 10 }] });
    assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
    assert.deepEqual([invoice.body.doc.fecha, invoice.body.doc.hora, invoice.body.doc.codejercicio], ['2027-01-01', '00:30:00', '2027']);
    const [receipt] = (await t().call('GET', `/api/3/recibocliente?filter[idfactura]=${invoice.body.doc.idfactura}`)).body;
    assert.equal(receipt.vencimiento, '2027-01-01');
    // A customer created then is registered that day too.
    assert.equal((await t().call('GET', '/api/3/cliente/TZ')).body.fechaalta, '2027-01-01');
  });

  it('marks a receipt overdue only once its due date is past in the installation zone', async () => {
    await t().call('POST', '/api/3/formapago', { codpago: 'D1', descripcion: 'One day', plazovencimiento: 1, tipovencimiento: 'days' });
    const invoice = (await t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'TZ', codpago: 'D1', lineas: [{ descripcion: 'x', pvpunitario: 5 }] })).body.doc;
    const overdue = async () => (await t().call('GET', `/api/3/facturacliente/${invoice.idfactura}`)).body.vencida;
    // Due 2027-01-02. At 23:30 UTC on 1 January it is already 2 January in Madrid: not yet past.
    instant.ms = Date.parse('2027-01-01T23:30:00Z');
    await t().app.runJob('overdue');
    assert.equal(await overdue(), false);
    // 23:30 UTC on 2 January is 00:30 on 3 January in Madrid: past, although UTC still says the 2nd.
    instant.ms = Date.parse('2027-01-02T23:30:00Z');
    await t().app.runJob('overdue');
    assert.equal(await overdue(), true);
  });

  it('follows a change of the timezone setting', async () => {
    instant.ms = Date.parse('2027-06-30T22:30:00Z');
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { timezone: 'UTC' } })).status, 200);
    assert.equal((await t().call('POST', '/api/3/crearPedidoCliente', { codcliente: 'TZ' })).body.doc.fecha, '2027-06-30');
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { timezone: 'Europe/Madrid' } })).status, 200);
    assert.equal((await t().call('POST', '/api/3/crearPedidoCliente', { codcliente: 'TZ' })).body.doc.fecha, '2027-07-01');
    assert.equal((await t().call('PUT', '/api/3/settings/default', { properties: { timezone: 'Mars/Olympus' } })).status, 422);
  });
}, { clock });

forEachEngine('TIME_ZONE overrides the setting', (t) => {
  it('dates by the configured zone', async () => {
    await t().call('POST', '/api/3/cliente', { codcliente: 'TZU', nombre: 'UTC' });
    const doc = (await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'TZU' })).body.doc;
    assert.deepEqual([doc.fecha, doc.hora], ['2026-12-31', '23:30:00']);
  });
}, { clock: { now: () => Date.parse('2026-12-31T23:30:00Z') }, config: { timeZone: 'UTC' } });
