import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, it } from 'node:test';
import { backoffSeconds } from '../src/modules/verifactu/sending/send-records.ts';
import { makeCertificates, startStandIn } from './helpers/aeat-stand-in.ts';
import { forEachEngine } from './helpers/test-app.ts';
import { assertChained, recordsOf, switchOn } from './helpers/verifactu.ts';

/**
 * VERI*FACTU sending (issue 27, docs/verifactu.md "Sending") against a local stand-in of the AEAT's
 * service: mutual TLS with a certificate made here, every message validated against the AEAT's
 * schemas, flow control on the service's clock (60 s before the first answer, then each answer's
 * TiempoEsperaEnvio), answers stored on the records, rejections corrected by subsanación, faults and
 * dropped connections retried with back-off and `Incidencia=S`.
 */
const certificates = makeCertificates();
const standIn = await startStandIn(certificates);
after(() => standIn.close());

let now = Date.parse('2027-01-15T09:30:00Z');
const clock = { now: () => now };
const SECOND = 1000;

it('backs off 1, 2, 4 ... minutes after failures, never more than an hour', () => {
  assert.deepEqual([1, 2, 3, 4, 6, 7, 8, 30].map(backoffSeconds), [60, 120, 240, 480, 1920, 3600, 3600, 3600]);
});

forEachEngine('VERI*FACTU sending', (t) => {
  const call = (method: string, url: string, body?: unknown) => t().call(method, url, body);
  const send = () => t().app.runJob('verifactu-send');
  const invoice = async (codcliente = 'ANA') => {
    const answer = await call('POST', '/api/3/crearFacturaCliente', { codcliente, lineas: [{ descripcion: 'Consultoría', cantidad: 1, pvpunitario: 100, codimpuesto: 'IVA21' }] });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.doc as Record<string, any>;
  };
  const status = async () => (await call('GET', '/api/3/verifactuEstado?idempresa=1')).body;

  before(async () => {
    now = Date.parse('2027-01-15T09:30:00Z');
    standIn.messages.length = 0;
    standIn.held.clear();
    standIn.failures.length = 0;
    standIn.wait = 60;
    for (const customer of [
      { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' },
      { codcliente: 'NUEVO', nombre: 'Cliente Nuevo SL', cifnif: 'B76543214' },
    ]) assert.equal((await call('POST', '/api/3/cliente', customer)).status, 201);
    await switchOn(t());
  });

  it('keeps the company\'s certificate once its password opens it, and never shows file or password', async () => {
    const wrong = await call('PATCH', '/api/3/verifactuempresa/1', { certificado: certificates.clientP12.toString('base64'), certificadoclave: 'no es esta' });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.body.fields.certificado, 'invalid-certificate');
    assert.equal((await call('PATCH', '/api/3/verifactuempresa/1', { certificado: 'not base64 at all!' })).body.fields.certificado, 'invalid-base64');
    const kept = await call('PATCH', '/api/3/verifactuempresa/1', { certificado: certificates.clientP12.toString('base64'), certificadoclave: certificates.password });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.match(kept.body.certificadotitular, /CN=EJEMPLO SOLUCIONES SL/);
    assert.match(kept.body.certificadocaduca, /^\d{4}-\d{2}-\d{2}$/);
    // Clearing the password is checked with no password (what would be kept), not the one kept before.
    assert.equal((await call('PATCH', '/api/3/verifactuempresa/1', { certificadoclave: null })).body.fields?.certificado, 'invalid-certificate');
    const read = await call('GET', '/api/3/verifactuempresa/1');
    assert.equal(read.body.certificado, undefined);
    assert.equal(read.body.certificadoclave, undefined);
    assert.ok(!JSON.stringify(read.body).includes(certificates.password));
  });

  it('waits 60 s before the first message, then sends the records in order and stores the CSV on them', async () => {
    const first = await invoice();
    now += 30 * SECOND;
    await invoice();
    await invoice();
    now += 29 * SECOND;
    await send();
    assert.equal(standIn.messages.length, 0, 'nothing leaves before 60 s have passed since the first record');
    assert.equal((await status()).registros.pendiente, 3);
    now += 1 * SECOND;
    await send();
    assert.equal(standIn.messages.length, 1);
    assert.deepEqual(standIn.invalid, []);
    const [message] = standIn.messages;
    assert.equal(message!.incidencia, false);
    const records = await recordsOf(t());
    assert.deepEqual(message!.records.map((record) => record.numserie), records.map((record) => record.numserie));
    assert.equal(message!.records[0]!.numserie, first.codigo);
    for (const record of records) {
      assert.equal(record.estado, 'correcto');
      assert.match(record.csv, /^A-\d{8}[A-H]$/);
      assert.equal(record.codigoerror, null);
    }
    const messages = await call('GET', '/api/3/verifactuenvio?filter[idempresa]=1');
    assert.equal(messages.body.length, 1);
    assert.equal(messages.body[0].estado, 'respondido');
    assert.equal(messages.body[0].csv, records[0]!.csv);
    assert.equal(messages.body[0].registros, 3);
    assert.equal(messages.body[0].tiempoespera, 60);
  });

  it('waits each answer\'s TiempoEsperaEnvio before the next message', async () => {
    standIn.wait = 120;
    await invoice();
    now += 60 * SECOND;
    await send();
    assert.equal(standIn.messages.length, 2, 'the first answer said 60 s');
    await invoice();
    now += 119 * SECOND;
    await send();
    assert.equal(standIn.messages.length, 2, 'the last answer said 120 s');
    now += 1 * SECOND;
    await send();
    assert.equal(standIn.messages.length, 3);
    assert.equal((await status()).tiempoespera, 120);
    standIn.wait = 60;
    now += 120 * SECOND;
  });

  it('stores a rejection with the AEAT\'s code and text, and corrects it with a chained subsanación', async () => {
    standIn.unknownNifs.add('B76543214');
    const doc = await invoice('NUEVO');
    await invoice();
    now += 60 * SECOND;
    await send();
    const records = await recordsOf(t());
    const rejected = records.find((record) => record.idfactura === doc.idfactura)!;
    assert.equal(rejected.estado, 'incorrecto');
    assert.equal(rejected.codigoerror, 1109);
    assert.match(rejected.descripcionerror, /censo de la AEAT/);
    assert.equal(records[records.length - 1]!.estado, 'correcto', 'the other record of the message is taken');
    const shown = await status();
    assert.deepEqual(shown.porcorregir.map((record: any) => record.id), [rejected.id]);

    const accepted = records[records.length - 1]!;
    const refused = await call('POST', `/api/3/subsanarRegistroVerifactu/${accepted.id}`, {});
    assert.equal(refused.status, 409);
    assert.equal(refused.body.reason, 'not-rejected');
    const unknownField = await call('POST', `/api/3/subsanarRegistroVerifactu/${rejected.id}`, { importetotal: '1.00' });
    assert.equal(unknownField.status, 422);
    assert.equal(unknownField.body.fields.importetotal, 'not-correctable');
    assert.equal((await call('POST', `/api/3/subsanarRegistroVerifactu/${rejected.id}`, { destinatario: { nombre: 'X', nif: 'B1' } })).body.fields['destinatario.nif'], 'invalid-spanish-tax-id');

    const corrected = await call('POST', `/api/3/subsanarRegistroVerifactu/${rejected.id}`, { destinatario: { nombre: 'Cliente Nuevo SL', nif: '12345678Z' } });
    assert.equal(corrected.status, 201, JSON.stringify(corrected.body));
    assert.equal(corrected.body.idsubsanado, rejected.id);
    assert.equal(corrected.body.numserie, rejected.numserie);
    assert.equal(corrected.body.importetotal, rejected.importetotal);
    assert.equal((await call('POST', `/api/3/subsanarRegistroVerifactu/${rejected.id}`, {})).body.reason, 'superseded');
    const xml = (await t().request({ method: 'GET', url: `/api/3/registroverifactu/${corrected.body.id}/xml` })).body;
    assert.match(xml, /<sum1:Subsanacion>S<\/sum1:Subsanacion>\s*<sum1:RechazoPrevio>X<\/sum1:RechazoPrevio>\s*<sum1:TipoFactura>/);
    assert.match(xml, /<sum1:NIF>12345678Z<\/sum1:NIF>/);
    assertChained(await recordsOf(t()));

    now += 60 * SECOND;
    await send();
    const last = standIn.messages[standIn.messages.length - 1]!;
    assert.deepEqual(last.records.map((record) => [record.numserie, record.subsanacion, record.rechazoPrevio]), [[rejected.numserie, 'S', 'X']]);
    const after = (await recordsOf(t())).find((record) => record.id === corrected.body.id)!;
    assert.equal(after.estado, 'correcto');
    assert.deepEqual((await status()).porcorregir, []);
    standIn.unknownNifs.clear();
  });

  it('keeps records queued through a fault and a dropped connection, backs off, and marks them Incidencia=S', async () => {
    standIn.failures.push('fault-server');
    const doc = await invoice();
    now += 60 * SECOND;
    const before = standIn.messages.length;
    await send();
    let shown = await status();
    assert.equal(shown.registros.pendiente, 1);
    assert.equal(shown.fallos, 1);
    assert.match(shown.ultimoerror, /env:Server/);
    assert.equal(shown.ultimoenvio.estado, 'fallido');

    standIn.failures.push('drop');
    now += 59 * SECOND;
    await send();
    assert.equal((await status()).fallos, 1, 'not retried before the back-off');
    now += 1 * SECOND;
    await send();
    shown = await status();
    assert.equal(shown.fallos, 2);
    assert.equal(shown.registros.pendiente, 1);
    assert.equal(shown.ultimoenvio.estado, 'sinrespuesta', 'sent, and no answer: its records may have arrived');

    await invoice();
    now += 120 * SECOND;
    await send();
    assert.equal(standIn.messages.length, before + 1, 'the fault and the drop reached no answer');
    const message = standIn.messages[standIn.messages.length - 1]!;
    assert.equal(message.incidencia, true);
    assert.equal(message.records[0]!.numserie, doc.codigo);
    assert.equal(message.records.length, 2);
    shown = await status();
    assert.equal(shown.registros.pendiente, 0);
    assert.equal(shown.fallos, 0);
    assert.equal(shown.ultimoerror, null);
    // The message after that one carries no late record.
    await invoice();
    now += 60 * SECOND;
    await send();
    assert.equal(standIn.messages[standIn.messages.length - 1]!.incidencia, false);
  });

  it('does not send with a certificate the AEAT\'s authority did not issue', async () => {
    const stranger = await call('PATCH', '/api/3/verifactuempresa/1', { certificado: certificates.strangerP12.toString('base64'), certificadoclave: certificates.password });
    assert.equal(stranger.status, 200, JSON.stringify(stranger.body));
    await invoice();
    now += 60 * SECOND;
    const before = standIn.messages.length;
    await send();
    assert.equal(standIn.messages.length, before);
    const shown = await status();
    assert.equal(shown.registros.pendiente, 1);
    assert.equal(shown.fallos, 1);
    assert.equal(shown.ultimoenvio.estado, 'sinrespuesta');
    assert.ok(shown.ultimoerror && !/no certificate/.test(shown.ultimoerror), `the TLS refusal is shown: ${shown.ultimoerror}`);
    // The taxpayer's certificate again, as a legacy PKCS#12 that Node's own TLS would refuse to open.
    assert.equal((await call('PATCH', '/api/3/verifactuempresa/1', { certificado: certificates.legacyP12.toString('base64'), certificadoclave: certificates.password })).status, 200);
    now += 60 * SECOND;
    await send();
    assert.equal((await status()).registros.pendiente, 0);
    assert.equal(standIn.messages.length, before + 1);
    assert.equal((await call('PATCH', '/api/3/verifactuempresa/1', { certificado: certificates.clientP12.toString('base64'), certificadoclave: certificates.password })).status, 200);
  });

  it('takes a 3000 as a record\'s own arrival only after a message that may have arrived, not after a fault', async () => {
    // A fault: the AEAT refused the message whole, nothing of it was registered.
    standIn.failures.push('fault-server');
    const doc = await invoice();
    now += 120 * SECOND;
    await send();
    assert.equal((await status()).ultimoenvio.estado, 'fallido');
    // The invoice is at the AEAT all the same, from another system: that 3000 is a rejection.
    const record = (await recordsOf(t())).find((row) => row.idfactura === doc.idfactura)!;
    standIn.held.set(`${record.nifemisor}|${record.numserie}|${record.fechaexpedicion}`, { estado: 'Correcta', idpeticion: 'OTRO' });
    now += 120 * SECOND;
    await send();
    const after = (await recordsOf(t())).find((row) => row.id === record.id)!;
    assert.deepEqual([after.estado, after.codigoerror], ['incorrecto', 3000]);
  });
}, { clock, config: { verifactu: { endpoint: standIn.url, caFile: certificates.caFile, certFile: undefined, certPassword: '', pollMs: 3_600_000, timeoutMs: 5000 } } });

// Flow control's one exception, on one engine (it needs 1,001 invoices; the rule is the sender's, not the engine's).
forEachEngine('VERI*FACTU sending, a full message', (t) => {
  it('sends 1,000 records at once before the wait is over, and the rest after it', async () => {
    now = Date.parse('2027-01-20T09:30:00Z');
    const before = standIn.messages.length;
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' })).status, 201);
    await switchOn(t());
    const body = { codcliente: 'ANA', lineas: [{ descripcion: 'Servicio', cantidad: 1, pvpunitario: 10, codimpuesto: 'IVA21' }] };
    for (let created = 0; created < 1001; created++) assert.equal((await t().call('POST', '/api/3/crearFacturaCliente', body)).status, 200);
    now += SECOND;
    await t().app.runJob('verifactu-send');
    assert.equal(standIn.messages.length, before + 1, '1,000 records waiting: no need to wait the 60 s');
    assert.equal(standIn.messages.at(-1)!.records.length, 1000);
    await t().app.runJob('verifactu-send');
    assert.equal(standIn.messages.length, before + 1, 'the one left waits for the answer\'s TiempoEsperaEnvio');
    now += 60 * SECOND;
    await t().app.runJob('verifactu-send');
    assert.equal(standIn.messages.at(-1)!.records.length, 1);
    const shown = (await t().call('GET', '/api/3/verifactuEstado?idempresa=1')).body;
    assert.deepEqual(shown.registros, { pendiente: 0, correcto: 1001, aceptadoconerrores: 0, incorrecto: 0 });
  });
}, { engines: ['sqlite'], clock, config: { verifactu: { endpoint: standIn.url, caFile: certificates.caFile, certFile: certificates.clientP12File, certPassword: certificates.password, pollMs: 3_600_000, timeoutMs: 10_000 } } });

after(() => fs.rmSync(certificates.dir, { recursive: true, force: true }));
