import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { checkSigned, XADES_NAMESPACE } from '../src/modules/verifactu/signing/sign-record.ts';
import { makeCertificates, startStandIn } from './helpers/aeat-stand-in.ts';
import { forEachEngine } from './helpers/test-app.ts';
import { createHash } from 'node:crypto';
import { assertValidEvent, assertValidSuministro, recordsOf, switchOn, withoutGuards } from './helpers/verifactu.ts';
import { recordXml } from '../src/modules/verifactu/xml-document.ts';
import type { XmlTree } from '../src/modules/verifactu/xml-tree.ts';
import { registroVerifactuModel } from '../src/modules/verifactu/index.ts';

/**
 * NO VERI*FACTU signing (issue 27, item 2; docs/verifactu.md "NO VERI*FACTU"): every record signed
 * XAdES enveloped with the AGE policy and RSA-SHA256 by the company's certificate; each signature
 * verified by an independent tool (xmlsec1, Debian) against the test authority, and refused once a
 * byte of the record changes; the chain check verifies every signature; the export of a period holds
 * every record, signed, in messages the AEAT's schema accepts; the event log (EventosSIF.xsd) opens
 * with the first record, logs checks, exports, summaries every 6 hours and the end of operation, each
 * event chained by the AEAT's hash rule (recomputed here apart from the service's code), signed and
 * schema-valid.
 */
const certificates = makeCertificates();
const standIn = await startStandIn(certificates);
after(async () => {
  await standIn.close();
  fs.rmSync(certificates.dir, { recursive: true, force: true });
});

const xmlsec = spawnSync('xmlsec1', ['--version']).status === 0;
if (!xmlsec && process.env.CI) throw new Error('xmlsec1 is needed for the signature tests (apt-get install -y xmlsec1)');

/** xmlsec1's verdict on a signed document, with the test authority trusted and XAdES SignedProperties found by Id. */
function xmlsecVerifies(signed: string): { ok: boolean; output: string } {
  const file = path.join(certificates.dir, `signed-${process.hrtime.bigint()}.xml`);
  fs.writeFileSync(file, signed);
  const run = spawnSync('xmlsec1', ['--verify', '--enabled-key-data', 'x509', '--trusted-pem', certificates.caFile, '--id-attr:Id', `${XADES_NAMESPACE}:SignedProperties`, file], { encoding: 'utf8' });
  fs.rmSync(file);
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

let now = Date.parse('2027-02-01T09:00:00Z');
const clock = { now: () => now };

forEachEngine('VERI*FACTU signing', (t) => {
  const call = (method: string, url: string, body?: unknown) => t().call(method, url, body);
  const contentOf = async (id: number) => (await t().app.ctx.store.get(registroVerifactuModel, id, undefined, 'all'))!.registro as XmlTree;
  const signedOf = async (id: number) => String((await t().app.ctx.database.kysely.selectFrom('registros_verifactu').select('firmado').where('id', '=', id).executeTakeFirstOrThrow()).firmado);

  before(async () => {
    // Each engine's suite starts on 1 February 2027 (the one before moved the clock on).
    now = Date.parse('2027-02-01T09:00:00Z');
    assert.equal((await call('POST', '/api/3/cliente', { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' })).status, 201);
    await switchOn(t(), 1, 'noverifactu');
    for (const price of [100, 250.5]) {
      const created = await call('POST', '/api/3/crearFacturaCliente', { codcliente: 'ANA', lineas: [{ descripcion: 'Servicio', cantidad: 1, pvpunitario: price, codimpuesto: 'IVA21' }] });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      now += 60_000;
    }
    const first = (await recordsOf(t()))[0]!;
    assert.equal((await call('POST', `/api/3/anularFacturaCliente/${first.idfactura}`)).status, 200);
  });

  it('signs every record XAdES-EPES with the AGE policy, and xmlsec1 verifies each', async (context) => {
    const records = await recordsOf(t());
    assert.deepEqual(records.map((record) => record.tipo), ['alta', 'alta', 'anulacion']);
    for (const record of records) {
      const signed = await signedOf(record.id);
      assert.match(signed, /<ds:SignatureMethod Algorithm="http:\/\/www\.w3\.org\/2001\/04\/xmldsig-more#rsa-sha256"\/>/);
      assert.match(signed, /Algorithm="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#enveloped-signature"/);
      assert.match(signed, /urn:oid:2\.16\.724\.1\.3\.1\.1\.2\.1\.9/);
      assert.match(signed, /G7roucf600\+f03r\/o0bAOQ6WAs0=/);
      assert.match(signed, /<\/ds:Signature><\/sum1:Registro(Alta|Anulacion)>$/, 'the signature closes the record');
      // What was signed is the record as its content is kept.
      assert.equal(await checkSigned(signed, recordXml({ tipo: record.tipo, content: await contentOf(record.id) })), undefined);
      // One byte of the record changed: the signature no longer holds.
      const tampered = signed.replace(/<sum1:IDVersion>1\.0</, '<sum1:IDVersion>1.1<');
      assert.notEqual(tampered, signed);
      assert.match(String(await checkSigned(tampered, tampered.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, ''))), /^the signature does not verify/);
      if (!xmlsec) {
        context.diagnostic('xmlsec1 not installed: the independent check is skipped here (CI requires it)');
        continue;
      }
      const verdict = xmlsecVerifies(signed);
      assert.ok(verdict.ok, verdict.output);
      assert.match(verdict.output, /SignedInfo References \(ok\/all\): 2\/2/);
      assert.equal(xmlsecVerifies(tampered).ok, false);
    }
  });

  it('checks every signature with the chain, and finds a signature over other data', async () => {
    const chain = await call('GET', '/api/3/verifactuCadena?idempresa=1');
    assert.equal(chain.status, 200);
    assert.equal(chain.body.valid, true, JSON.stringify(chain.body));
    assert.deepEqual(chain.body.signatures, { signed: 3, unsigned: 0, firstInvalid: null });
    const [record] = await recordsOf(t());
    const signed = await signedOf(record!.id);
    const other = signed.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '').replace(record!.importetotal, '1.00');
    assert.equal(await checkSigned(signed, other), 'the signed record is not the record kept');
  });

  it('exports a period\'s records, signed, in messages the AEAT schema accepts', async () => {
    const refused = await call('GET', '/api/3/verifactuExportar?idempresa=1&desde=2027-02-02&hasta=2027-02-01');
    assert.equal(refused.status, 422);
    assert.equal(refused.body.fields.hasta, 'before-desde');
    assert.equal((await call('GET', '/api/3/verifactuExportar?idempresa=1')).body.fields.desde, 'required');
    assert.equal((await call('GET', '/api/3/verifactuExportar?idempresa=1&desde=2027-02-30&hasta=2027-03-01')).body.fields.desde, 'invalid-date', 'a day that does not exist');
    const exported = await t().request({ method: 'GET', url: '/api/3/verifactuExportar?idempresa=1&desde=2027-02-01&hasta=2027-02-28' });
    assert.equal(exported.statusCode, 200, exported.body);
    assert.match(String(exported.headers['content-type']), /^application\/xml/);
    assert.equal(exported.headers['x-total-count'], '3');
    const messages = exported.body.match(/<sum:RegFactuSistemaFacturacion[\s\S]*?<\/sum:RegFactuSistemaFacturacion>/g) ?? [];
    assert.equal(messages.length, 1);
    assert.equal((messages[0]!.match(/<ds:Signature /g) ?? []).length, 3);
    assertValidSuministro(`<?xml version="1.0" encoding="UTF-8"?>${messages[0]}`, 'exported message');
    const none = await t().request({ method: 'GET', url: '/api/3/verifactuExportar?idempresa=1&desde=2026-01-01&hasta=2026-12-31' });
    assert.equal(none.headers['x-total-count'], '0');
  });
  const events = async () => {
    const answer = await call('GET', '/api/3/eventoverifactu?filter[idempresa]=1&sort[id]=ASC&limit=1000');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body as Array<Record<string, any>>;
  };
  const eventSigned = async (id: number) => String((await t().app.ctx.database.kysely.selectFrom('verifactu_eventos').select('firmado').where('id', '=', id).executeTakeFirstOrThrow()).firmado);
  const tag = (xml: string, name: string) => new RegExp(`<sfe:${name}>([^<]*)</sfe:${name}>`).exec(xml)?.[1];

  it('keeps an event log: opened by the first record, chained, signed and valid against EventosSIF.xsd', async () => {
    let log = await events();
    assert.equal(log[0]!.tipo, '01', 'the first record opened the NO VERI*FACTU operation');
    assert.equal(log.filter((event) => event.tipo === '01').length, 1);
    const chain = await call('GET', '/api/3/verifactuCadena?idempresa=1');
    assert.deepEqual(chain.body.eventos, { valid: true, events: log.length, firstBroken: null, signatures: { signed: log.length, unsigned: 0 } });
    log = await events();
    assert.deepEqual(log.slice(-2).map((event) => event.tipo), ['03', '05'], 'the check is logged, records then events');
    assert.equal((await call('GET', '/api/3/verifactuExportar?idempresa=1&desde=2027-02-01&hasta=2027-02-28')).status, 200);
    const exportedEvents = await t().request({ method: 'GET', url: '/api/3/verifactuExportar?idempresa=1&desde=2027-02-01&hasta=2027-02-28&tipo=eventos' });
    assert.equal(exportedEvents.statusCode, 200);
    now += 6 * 3_600_000;
    await t().app.runJob('verifactu-summary');
    await t().app.runJob('verifactu-summary');
    log = await events();
    assert.deepEqual(log.slice(-3).map((event) => event.tipo), ['08', '09', '10'], 'both exports and one summary 6 hours on');
    assert.equal(exportedEvents.headers['x-total-count'], String(log.length - 2), 'every event before the export of events');
    assert.equal((exportedEvents.body.match(/<sfe:RegistroEvento[ >]/g) ?? []).length, log.length - 2, 'and each of them in the body');

    let previous = '';
    for (const event of log) {
      const signed = await eventSigned(event.id);
      assertValidEvent(signed, `event ${event.id} (${event.tipo})`);
      // HuellaEvento by the AEAT's rule, written here again.
      const expected = createHash('sha256').update(`NIF=${tag(signed, 'NIF')}&ID=&IdSistemaInformatico=${tag(signed, 'IdSistemaInformatico')}&Version=${tag(signed, 'Version')}` +
        `&NumeroInstalacion=${tag(signed, 'NumeroInstalacion')}&NIF=B12345674&TipoEvento=${event.tipo}&HuellaEvento=${previous}&FechaHoraHusoGenEvento=${event.fechahorahuso}`).digest('hex').toUpperCase();
      assert.equal(event.huella, expected, `event ${event.id}'s hash`);
      assert.equal(event.huellaanterior, previous || null);
      if (xmlsec) assert.ok(xmlsecVerifies(signed).ok, `event ${event.id}'s signature`);
      previous = event.huella;
    }
    const summary = await eventSigned(log[log.length - 1]!.id);
    assert.equal(tag(summary, 'NumeroDeRegistrosFacturacionAltaGenerados'), '2');
    assert.equal(tag(summary, 'NumeroDeRegistrosFacturacionAnulacionGenerados'), '1');
    assert.equal(tag(summary, 'SumaImporteTotalAlta'), '424.11');
  });

  it('answers a request of the AEAT with the period\'s records, signed, through RequerimientoSOAP', async () => {
    standIn.messages.length = 0;
    standIn.held.clear();
    now = Date.parse('2027-03-02T09:00:00Z');
    const refused = await call('POST', '/api/3/verifactuRequerimiento', { idempresa: 1, refrequerimiento: 'X'.repeat(19), desde: '2027-02-01' });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.fields, { refrequerimiento: 'invalid-value', hasta: 'required' });
    assert.deepEqual((await call('POST', '/api/3/verifactuRequerimiento', { idempresa: 1, refrequerimiento: 'REQ', desde: '2027-02-29', hasta: '2027-02-28' })).body.fields, { desde: 'invalid-date' });
    const open = await call('POST', '/api/3/verifactuRequerimiento', { idempresa: 1, refrequerimiento: 'REQ2027000000', desde: '2027-02-01', hasta: '2027-03-02' });
    assert.deepEqual(open.body.fields, { hasta: 'period-not-closed' }, 'a request covers a closed period: today\'s records may still come');
    const created = await call('POST', '/api/3/verifactuRequerimiento', { idempresa: 1, refrequerimiento: 'REQ2027000001', desde: '2027-02-01', hasta: '2027-02-28' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.estado, 'pendiente');
    await t().app.runJob('verifactu-send');
    assert.equal(standIn.messages.length, 0, 'flow control: 60 s before the first message');
    now += 60_000;
    await t().app.runJob('verifactu-send');
    assert.deepEqual(standIn.invalid, []);
    assert.equal(standIn.messages.length, 1);
    const [message] = standIn.messages;
    assert.equal(message!.service, 'RequerimientoSOAP');
    assert.deepEqual(message!.requerimiento, { ref: 'REQ2027000001', fin: 'S' });
    const records = await recordsOf(t());
    assert.deepEqual(message!.records.map((record) => record.huella), records.map((record) => record.huella), 'every record of the period, as kept, in generation order');
    assert.ok(message!.records.every((record) => record.outcome === 'Correcto'), 'each Huella recomputes at the stand-in');
    const request = await call('GET', `/api/3/verifacturequerimiento/${created.body.id}`);
    assert.equal(request.body.estado, 'enviado');
    assert.equal(request.body.mensajes, 1);
    const sent = await call('GET', '/api/3/verifactuenvio?filter[tipo]=requerimiento');
    assert.equal(sent.body.length, 1);
    assert.equal(sent.body[0].refrequerimiento, 'REQ2027000001');
    assert.equal(sent.body[0].estado, 'respondido');
    const empty = await call('POST', '/api/3/verifactuRequerimiento', { idempresa: 1, refrequerimiento: 'REQ2027000002', desde: '2026-01-01', hasta: '2026-01-31' });
    now += 60_000;
    await t().app.runJob('verifactu-send');
    assert.equal((await call('GET', `/api/3/verifacturequerimiento/${empty.body.id}`)).body.estado, 'sinregistros');
    assert.equal(standIn.messages.length, 1, 'no empty message');
  });

  it('finds an event altered behind the service\'s back, and logs the anomaly by the check that failed', async () => {
    const db = t().app.ctx.database.kysely;
    const target = (await events())[0]!;
    assert.equal(target.tipo, '01');
    const content = async () => {
      const row = await db.selectFrom('verifactu_eventos').select('registro').where('id', '=', target.id).executeTakeFirstOrThrow();
      return typeof row.registro === 'string' ? JSON.parse(row.registro) : row.registro;
    };
    const original = await content();
    const anomalyOf = async () => {
      const log = await events();
      assert.deepEqual(log.slice(-3).map((event) => event.tipo), ['03', '05', '06'], 'the check, and the anomaly it found in the events');
      return tag(await eventSigned(log[log.length - 1]!.id), 'TipoAnomalia');
    };
    // The kept event says something its hash does not cover: the signature, intact, is over other
    // data. A signature anomaly (02).
    await withoutGuards(t(), 'verifactu_eventos', async () => {
      const altered = { ...original, Evento: { ...original.Evento, OtrosDatosEvento: 'registros hasta 999' } };
      await db.updateTable('verifactu_eventos').set({ registro: JSON.stringify(altered) }).where('id', '=', target.id).execute();
    });
    let check = await call('GET', '/api/3/verifactuCadena?idempresa=1');
    assert.deepEqual([check.body.valid, check.body.eventos.firstBroken], [false, { id: target.id, check: 'signature', reason: 'the signed record is not the record kept' }]);
    assert.equal(await anomalyOf(), '02');
    // A column that no longer says what the event does (summaries count by it): a chain anomaly (01).
    await withoutGuards(t(), 'verifactu_eventos', async () => {
      await db.updateTable('verifactu_eventos').set({ registro: JSON.stringify(original), tipo: '10' }).where('id', '=', target.id).execute();
    });
    check = await call('GET', '/api/3/verifactuCadena?idempresa=1');
    assert.deepEqual([check.body.eventos.firstBroken?.id, check.body.eventos.firstBroken?.check, check.body.eventos.firstBroken?.reason], [target.id, 'chain', 'the columns are not the event kept']);
    assert.equal(await anomalyOf(), '01');
    await withoutGuards(t(), 'verifactu_eventos', async () => {
      await db.updateTable('verifactu_eventos').set({ tipo: target.tipo }).where('id', '=', target.id).execute();
    });
  });

  it('ends the operation in the event log when the company leaves NO VERI*FACTU', async () => {
    assert.equal((await call('PATCH', '/api/3/verifactuempresa/1', { modo: 'off' })).status, 200);
    let log = await events();
    assert.equal(log[log.length - 1]!.tipo, '02');
    // An invoice cancelled since goes on in NO VERI*FACTU: its anulación opens an operation, and ends it.
    const [, second] = await recordsOf(t());
    assert.equal((await call('POST', `/api/3/anularFacturaCliente/${second!.idfactura}`)).status, 200);
    log = await events();
    assert.deepEqual(log.slice(-3).map((event) => event.tipo), ['02', '01', '02']);
    const refused = await call('DELETE', `/api/3/eventoverifactu/${log[0]!.id}`);
    assert.equal(refused.status, 405);
  });
}, { clock, config: { verifactu: { certFile: certificates.clientP12File, certPassword: certificates.password, endpoint: standIn.url, caFile: certificates.caFile, pollMs: 3_600_000, timeoutMs: 5000 } } });
