import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, withOtherInstance, type TestApp } from './helpers/test-app.ts';

/**
 * Recurring invoices (docs/recurring.md) on every engine, on a clock that reads 27 November 2026
 * (Madrid): due periods billed once each, and never again; month-end and leap-day anchors; two
 * instances; a refused period that keeps its error and holds the later ones until it goes or is
 * skipped; the preview, which writes nothing and matches the invoices to the cent; pausing and
 * resuming; bad input refused naming the field.
 */
const TODAY = '2026-11-27';
const offset = Date.parse(`${TODAY}T10:00:00Z`) - Date.now();
const clock = { now: () => Date.now() + offset };
const MAIL = { smtpUrl: undefined, pollMs: 3_600_000, retryBaseSeconds: 0, maxAttempts: 3, timeoutMs: 2000, maxAttachmentBytes: 5 * 1_048_576 };

async function template(t: TestApp, fields: Record<string, unknown>, lines: Array<Record<string, unknown>> = [{ referencia: 'MANT', cantidad: 1 }]): Promise<number> {
  const created = await t.call('POST', '/api/3/facturarecurrente', { codcliente: 'REC1', ...fields });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = Number(created.body.idrecurrente);
  for (const [orden, line] of lines.entries()) {
    const answer = await t.call('POST', '/api/3/lineafacturarecurrente', { idrecurrente: id, orden, ...line });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
  }
  return id;
}

const periods = async (t: TestApp, id: number) =>
  ((await t.call('GET', `/api/3/facturarecurrenteperiodo?filter[idrecurrente]=${id}&sort[periodo]=ASC&limit=500`)).body as Array<Record<string, any>>);
const generate = async (t: TestApp, idrecurrente?: number) => {
  const answer = await t.call('POST', '/api/3/generarFacturasRecurrentes', idrecurrente === undefined ? {} : { idrecurrente });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as { created: Array<Record<string, any>>; failed: Array<Record<string, any>> };
};
const get = async (t: TestApp, id: number) => (await t.call('GET', `/api/3/facturarecurrente/${id}`)).body;
const invoiceCount = async (t: TestApp) => Number((await t.call('GET', '/api/3/facturacliente?limit=1')).headers['x-total-count']);

forEachEngine('recurring invoices', (t) => {
  before(async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'REC1', nombre: 'Suscriptora', cifnif: '12345678Z' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/producto', { referencia: 'MANT', descripcion: 'Mantenimiento mensual', precio: 49.9 })).status, 201);
  });

  it('refuses bad templates naming the field', async () => {
    for (const [body, field, reason] of [
      [{ periodicidad: 'month', intervalo: 0, fechainicio: '2026-01-01' }, 'intervalo', undefined],
      [{ periodicidad: 'fortnight', fechainicio: '2026-01-01' }, 'periodicidad', 'invalid-value'],
      [{ fechainicio: '2026-05-01', fechafin: '2026-04-30' }, 'fechafin', 'before-start'],
      [{ fechainicio: 'soon' }, 'fechainicio', undefined],
      [{ codcliente: 'NOBODY', fechainicio: '2026-01-01' }, 'codcliente', undefined],
    ] as const) {
      const answer = await t().call('POST', '/api/3/facturarecurrente', { codcliente: 'REC1', ...body });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      const named = answer.body.fields?.[field] ?? (answer.body.field === field ? answer.body.message : undefined);
      assert.ok(named, `${field} named: ${JSON.stringify(answer.body)}`);
      if (reason) assert.equal(named, reason);
    }
    const id = await template(t(), { fechainicio: '2027-01-01' }, []);
    const line = await t().call('POST', '/api/3/lineafacturarecurrente', { idrecurrente: id, referencia: 'GONE', cantidad: 1 });
    assert.equal(line.status, 422);
    assert.equal(line.body.fields.referencia, 'not-found');
    const free = await t().call('POST', '/api/3/lineafacturarecurrente', { idrecurrente: id, descripcion: 'Sin precio' });
    assert.equal(free.body.fields.pvpunitario, 'required');
    assert.equal((await t().call('DELETE', `/api/3/facturarecurrente/${id}`)).status, 200);
  });

  it('bills every due period once, anchored to month ends and leap days, and a second run bills nothing', async () => {
    const monthly = await template(t(), { fechainicio: '2026-08-31' });
    const quarterly = await template(t(), { periodicidad: 'month', intervalo: 3, fechainicio: '2026-02-15' });
    const yearly = await template(t(), { periodicidad: 'year', fechainicio: '2024-02-29' });
    const weekly = await template(t(), { periodicidad: 'week', fechainicio: '2026-11-06' });
    const before = await invoiceCount(t());
    const first = await generate(t());
    assert.deepEqual(first.failed, []);
    const expected: Record<number, string[]> = {
      [monthly]: ['2026-08-31', '2026-09-30', '2026-10-31'],
      [quarterly]: ['2026-02-15', '2026-05-15', '2026-08-15', '2026-11-15'],
      [yearly]: ['2024-02-29', '2025-02-28', '2026-02-28'],
      [weekly]: ['2026-11-06', '2026-11-13', '2026-11-20', '2026-11-27'],
    };
    for (const [id, dates] of Object.entries(expected)) {
      const rows = await periods(t(), Number(id));
      assert.deepEqual(rows.map((row) => row.desde), dates, `template ${id}`);
      assert.deepEqual(rows.map((row) => row.periodo), dates.map((_, i) => i));
      assert.ok(rows.every((row) => row.estado === 'facturado' && row.idfactura));
    }
    assert.equal(first.created.length, 14);
    assert.equal(await invoiceCount(t()), before + 14);
    const invoice = (await t().call('GET', `/api/3/facturacliente/${first.created[0]!.idfactura}`)).body;
    assert.equal(invoice.fecha, TODAY, 'dated the day it is issued');
    assert.match(invoice.observaciones, /Periodo facturado: 2026-08-31 - 2026-09-29/);
    assert.equal(invoice.total, 60.38, 'the product\'s price of the day, with its tax');
    const state = await get(t(), monthly);
    assert.equal(state.generadas, 3);
    assert.equal(state.ultimafecha, '2026-10-31');
    assert.equal(state.proximafecha, '2026-11-30');
    assert.equal((await get(t(), yearly)).proximafecha, '2027-02-28');
    const again = await generate(t());
    assert.deepEqual([again.created.length, again.failed.length], [0, 0]);
    assert.equal(await invoiceCount(t()), before + 14);
    const change = await t().call('PATCH', `/api/3/facturarecurrente/${monthly}`, { intervalo: 2 });
    assert.equal(change.status, 422);
    assert.equal(change.body.fields.intervalo, 'schedule-in-use');
    for (const id of [monthly, quarterly, yearly, weekly]) assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${id}`, { estado: 'finalizada' })).status, 200);
  });

  it('ends after its number of invoices or its end date', async () => {
    const counted = await template(t(), { periodicidad: 'week', fechainicio: '2026-10-01', maxfacturas: 2 });
    const dated = await template(t(), { periodicidad: 'week', fechainicio: '2026-10-01', fechafin: '2026-10-20' });
    await generate(t());
    assert.equal((await periods(t(), counted)).length, 2);
    assert.equal((await periods(t(), dated)).length, 3, 'the periods starting on 1, 8 and 15 October');
    for (const id of [counted, dated]) {
      const state = await get(t(), id);
      assert.equal(state.estado, 'finalizada');
      assert.equal(state.proximafecha, null);
    }
  });

  it('two instances billing at once bill each period once', async () => {
    const id = await template(t(), { periodicidad: 'day', fechainicio: '2026-11-13' });
    const before = await invoiceCount(t());
    await withOtherInstance(t(), async (other) => {
      await Promise.all([generate(t(), id), generate(other, id), generate(t(), id), generate(other, id)]);
    }, { clock });
    const rows = await periods(t(), id);
    assert.deepEqual(rows.map((row) => row.periodo), Array.from({ length: 15 }, (_, i) => i));
    assert.equal(new Set(rows.map((row) => row.idfactura)).size, 15);
    assert.equal(await invoiceCount(t()), before + 15, 'no invoice beyond one per period');
    assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${id}`, { estado: 'finalizada' })).status, 200);
  });

  it('a refused period keeps its error and holds the later ones until it goes or is skipped', async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'REC2', nombre: 'Morosa', cifnif: '87654321X' })).status, 201);
    const id = await template(t(), { codcliente: 'REC2', fechainicio: '2026-09-01' });
    assert.equal((await t().call('PATCH', '/api/3/cliente/REC2', { debaja: true, fechabaja: '2026-08-01' })).status, 200);
    const failed = await generate(t(), id);
    assert.deepEqual(failed.failed.map((row) => [row.periodo, row.code]), [[0, 'customer-blocked']]);
    assert.match((await get(t(), id)).ultimoerror, /^2026-09-01: customer-blocked/);
    await generate(t(), id);
    const events = (await t().call('GET', '/api/3/events?type=recurring.failed&limit=100')).body.events.filter((event: any) => event.payload.idrecurrente === id);
    assert.equal(events.length, 1, 'the same refusal is logged once');
    assert.equal((await periods(t(), id)).length, 0);
    const skipped = await t().call('POST', `/api/3/omitirPeriodoRecurrente/${id}`, {});
    assert.equal(skipped.status, 200, JSON.stringify(skipped.body));
    assert.equal(skipped.body.proximafecha, '2026-10-01');
    assert.equal(skipped.body.ultimoerror, null);
    assert.equal((await t().call('PATCH', '/api/3/cliente/REC2', { debaja: false, fechabaja: null })).status, 200);
    const billed = await generate(t(), id);
    assert.deepEqual(billed.created.map((row) => row.desde), ['2026-10-01', '2026-11-01']);
    assert.deepEqual((await periods(t(), id)).map((row) => [row.periodo, row.estado]), [[0, 'omitido'], [1, 'facturado'], [2, 'facturado']]);
    assert.equal((await get(t(), id)).ultimoerror, null);
    assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${id}`, { estado: 'finalizada' })).status, 200);
  });

  it('a template without lines: its preview and its billing refused naming `lineas`, no invoice made', async () => {
    const id = await template(t(), { fechainicio: '2026-11-01' }, []);
    const preview = await t().call('GET', `/api/3/facturarecurrente/${id}/proximas`);
    assert.equal(preview.status, 422, JSON.stringify(preview.body));
    assert.deepEqual([preview.body.message, preview.body.fields], ['validation-failed', { lineas: 'required' }]);
    const before = await invoiceCount(t());
    const report = await generate(t(), id);
    assert.deepEqual(report.created, []);
    assert.deepEqual(report.failed.map((row) => [row.idrecurrente, row.periodo, row.code, row.detail]), [[id, 0, 'validation-failed', { fields: { lineas: 'required' } }]]);
    assert.equal(await invoiceCount(t()), before, 'no invoice, no number taken');
    assert.equal((await periods(t(), id)).length, 0);
    const kept = (await get(t(), id)).ultimoerror;
    assert.ok(kept.startsWith('2026-11-01: validation-failed ') && kept.includes('"lineas":"required"'), kept);
    assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${id}`, { estado: 'finalizada' })).status, 200);
    assert.deepEqual((await t().call('GET', `/api/3/facturarecurrente/${id}/proximas`)).body, [], 'a finished one issues nothing, lines or not');
  });

  it('previews the next invoices without writing anything, to the cent of what is then billed', async () => {
    const id = await template(t(), { periodicidad: 'month', fechainicio: '2026-09-10' }, [
      { referencia: 'MANT', cantidad: 3, dtopor: 7.5 },
      { descripcion: 'Horas extra', cantidad: 1.25, pvpunitario: 33.33, codimpuesto: 'IVA10' },
    ]);
    const counts = async () => [await invoiceCount(t()), (await periods(t(), id)).length, Number((await t().call('GET', '/api/3/ejercicio?limit=1')).headers['x-total-count'])];
    const before = await counts();
    const preview = await t().call('GET', `/api/3/facturarecurrente/${id}/proximas?n=4`);
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.deepEqual(preview.body.map((row: any) => [row.desde, row.fecha]), [['2026-09-10', TODAY], ['2026-10-10', TODAY], ['2026-11-10', TODAY], ['2026-12-10', '2026-12-10']]);
    assert.deepEqual(await counts(), before, 'nothing written (no invoice, no period, no fiscal year)');
    const billed = await generate(t(), id);
    assert.equal(billed.created.length, 3);
    for (const [index, created] of billed.created.entries()) {
      const invoice = (await t().call('GET', `/api/3/facturacliente/${created.idfactura}`)).body;
      const lines = (await t().call('GET', `/api/3/lineafacturacliente?filter[idfactura]=${created.idfactura}&sort[idlinea]=ASC`)).body;
      const expected = preview.body[index];
      for (const field of ['neto', 'totaliva', 'total']) assert.equal(invoice[field], expected.doc[field], `${field} of invoice ${index}`);
      assert.deepEqual(lines.map((line: any) => line.pvptotal), expected.lineas.map((line: any) => line.pvptotal));
    }
    assert.equal((await t().call('GET', `/api/3/facturarecurrente/${id}/proximas?n=0`)).status, 422);
    assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${id}`, { estado: 'finalizada' })).status, 200);
  });

  it('a paused template bills nothing; resumed, it bills from today on, or the missed periods when asked', async () => {
    const skipping = await template(t(), { periodicidad: 'week', fechainicio: '2026-11-02', estado: 'pausada' });
    const catching = await template(t(), { periodicidad: 'week', fechainicio: '2026-11-02', estado: 'pausada' });
    const paused = await generate(t());
    assert.equal(paused.created.filter((row) => [skipping, catching].includes(row.idrecurrente)).length, 0);
    const resumed = await t().call('PATCH', `/api/3/facturarecurrente/${skipping}`, { estado: 'activa' });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.proximafecha, '2026-11-30', 'the periods missed while paused are not billed');
    const all = await t().call('POST', `/api/3/reanudarFacturaRecurrente/${catching}`, { facturarpendientes: true });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.proximafecha, '2026-11-02');
    assert.equal((await t().call('POST', `/api/3/reanudarFacturaRecurrente/${catching}`, {})).body.fields.estado, 'not-paused');
    await generate(t());
    assert.equal((await periods(t(), skipping)).length, 0);
    assert.deepEqual((await periods(t(), catching)).map((row) => row.desde), ['2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23']);
  });

  it('holds what could move billing blind: a schedule change after a resume, a stale skip, a reopened template\'s backlog', async () => {
    const resumed = await template(t(), { periodicidad: 'day', fechainicio: '2026-10-01', estado: 'pausada' });
    assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${resumed}`, { estado: 'activa' })).body.proximafecha, TODAY);
    const moved = await t().call('PATCH', `/api/3/facturarecurrente/${resumed}`, { periodicidad: 'month' });
    assert.equal(moved.status, 422, 'its period numbers are the daily schedule\'s');
    assert.equal(moved.body.fields.periodicidad, 'schedule-in-use');
    const stale = await t().call('POST', `/api/3/omitirPeriodoRecurrente/${resumed}`, { desde: '2026-10-01' });
    assert.equal(stale.status, 422);
    assert.equal(stale.body.fields.desde, 'not-next');
    assert.equal((await periods(t(), resumed)).length, 0, 'nothing skipped');
    const reopened = await template(t(), { periodicidad: 'week', fechainicio: '2026-10-05', estado: 'finalizada' });
    assert.deepEqual((await t().call('GET', `/api/3/facturarecurrente/${reopened}/proximas`)).body, [], 'a finished template issues nothing');
    const paused = await template(t(), { periodicidad: 'week', fechainicio: '2026-10-05', estado: 'pausada' });
    assert.equal((await t().call('GET', `/api/3/facturarecurrente/${paused}/proximas?n=2`)).body.map((row: any) => row.desde).join(), '2026-11-30,2026-12-07', 'from where resuming would start');
    const answer = await t().call('PATCH', `/api/3/facturarecurrente/${reopened}`, { estado: 'activa' });
    assert.equal(answer.body.proximafecha, '2026-11-30', 'reopened from today on, without its backlog');
    assert.equal((await t().call('POST', '/api/3/generarFacturasRecurrentes', [1])).status, 400);
    assert.equal((await t().call('POST', '/api/3/generarFacturasRecurrentes', { idrecurrente: true })).body.fields.idrecurrente, 'invalid-integer');
    assert.equal((await t().call('POST', '/api/3/facturarecurrente', { codcliente: 'REC1', fechainicio: '2026-01-01', codserie: 'ZZ' })).body.fields.codserie, 'not-found');
    for (const id of [resumed, reopened, paused]) assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${id}`, { estado: 'finalizada' })).status, 200);
  });

  it('a period the invoice itself refuses (the customer over its risk) writes nothing, keeps the error and logs it once', async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'REC5', nombre: 'Arriesgada', cifnif: '12345678Z', riesgomax: 50 })).status, 201);
    const id = await template(t(), { codcliente: 'REC5', fechainicio: '2026-11-01' });
    const before = await invoiceCount(t());
    for (let run = 0; run < 2; run++) {
      const report = await generate(t(), id);
      assert.deepEqual(report.failed.map((row) => row.code), ['customer-reached-maximum-risk']);
    }
    assert.equal(await invoiceCount(t()), before, 'no invoice, no number taken');
    assert.equal((await periods(t(), id)).length, 0);
    assert.match((await get(t(), id)).ultimoerror, /^2026-11-01: customer-reached-maximum-risk/);
    const events = (await t().call('GET', '/api/3/events?type=recurring.failed&limit=100')).body.events.filter((event: any) => event.payload.idrecurrente === id);
    assert.equal(events.length, 1);
    assert.equal((await t().call('PATCH', '/api/3/cliente/REC5', { riesgomax: 0 })).status, 200);
    assert.equal((await generate(t(), id)).created.length, 1);
    assert.equal((await get(t(), id)).ultimoerror, null);
    assert.equal((await t().call('PATCH', `/api/3/facturarecurrente/${id}`, { estado: 'finalizada' })).status, 200);
  });

  it('queues each invoice\'s e-mail once when the template says so, and keeps why one could not go', async () => {
    const settings = await t().call('POST', '/api/3/settings', { name: 'email', properties: { host: '127.0.0.1', port: 2525, email: 'facturas@acme.example' } });
    assert.equal(settings.status, 201, JSON.stringify(settings.body));
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'REC3', nombre: 'Con correo', cifnif: '12345678Z', email: 'rec3@cliente.example' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'REC4', nombre: 'Sin correo', cifnif: '12345678Z' })).status, 201);
    const mailed = await template(t(), { codcliente: 'REC3', periodicidad: 'day', fechainicio: '2026-11-25', enviaremail: true });
    const unmailed = await template(t(), { codcliente: 'REC4', periodicidad: 'day', fechainicio: '2026-11-27', enviaremail: true });
    // Two instances billing and queueing at once, then once more: each invoice's message is queued once.
    await withOtherInstance(t(), (other) => Promise.all([generate(t()), generate(other), generate(t())]), { clock, config: { mail: MAIL } });
    await generate(t());
    const invoices = (await periods(t(), mailed)).map((row) => row.idfactura);
    assert.equal(invoices.length, 3);
    const messages = (await t().call('GET', '/api/3/emailsent?filter[modelo]=FacturaCliente&limit=100')).body as Array<Record<string, any>>;
    assert.deepEqual(messages.map((row) => row.modeloid).sort(), [...invoices].sort(), 'one message per invoice, none twice');
    assert.ok(messages.every((row) => row.addressee === 'rec3@cliente.example' && row.estado === 'pendiente'));
    assert.deepEqual((await periods(t(), mailed)).map((row) => row.correo), ['encolado', 'encolado', 'encolado']);
    assert.deepEqual((await periods(t(), unmailed)).map((row) => row.correo), ['no-recipient']);
  });
}, { clock, config: { mail: MAIL } });
