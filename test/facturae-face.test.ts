import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { enabledEngines } from './helpers/engines.ts';
import { makeCertificates } from './helpers/aeat-stand-in.ts';
import { startFaceStandIn, type FaceStandIn } from './helpers/face-stand-in.ts';
import { attachmentsOf } from '../src/modules/mail/message-attachments.ts';
import { forEachEngine, multipart, type TestApp } from './helpers/test-app.ts';

/**
 * Public-sector invoicing (issue 58, docs/facturae-face.md) on every engine: a public body's DIR3
 * centres on its customer record and in its invoices' Facturae; the Facturae signed XAdES-EPES with
 * the "Facturae v3.1" policy, valid against the 3.2.2 schema, its signature verified by xmlsec1 and
 * its XAdES structure by the XAdES 1.3.2 schema (the vendor's check); FACe through a stand-in built
 * from its WSDL that verifies each request's WS-Security signature: registration, states polled
 * up to paid, refusals with FACe's codes, cancellation requests.
 */

const certificates = makeCertificates();
after(() => fs.rmSync(certificates.dir, { recursive: true, force: true }));
const VENDOR = path.resolve(import.meta.dirname, 'vendor/facturae');
const CATALOG = { ...process.env, XML_CATALOG_FILES: path.join(VENDOR, 'checks/catalog.xml') };

/**
 * The company's signing certificate issued with a short serial number: libxml2 cannot validate an
 * `X509SerialNumber` of more than 24 digits (shared/reference/facturae-face.md §1.6), so the XAdES
 * schema check needs one that real authorities' 38-digit serials would fail for the tool's sake.
 */
function shortSerialCertificate(): Buffer {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: certificates.dir, stdio: 'pipe' });
  fs.writeFileSync(path.join(certificates.dir, 'signer.ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,nonRepudiation\n');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'signer.key', '-out', 'signer.csr', '-subj', '/CN=EJEMPLO SOLUCIONES SL/serialNumber=IDCES-B12345674');
  run('x509', '-req', '-in', 'signer.csr', '-CA', 'test-ca.pem', '-CAkey', 'test-ca.key', '-set_serial', '424242', '-out', 'signer.pem', '-days', '30', '-extfile', 'signer.ext');
  run('pkcs12', '-export', '-in', 'signer.pem', '-inkey', 'signer.key', '-certfile', 'test-ca.pem', '-out', 'signer.p12', '-passout', `pass:${certificates.password}`);
  return fs.readFileSync(path.join(certificates.dir, 'signer.p12'));
}
const signer = shortSerialCertificate();

function schemaErrors(xml: string, schema: string): string | undefined {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', schema, '-'], { input: xml, encoding: 'utf8', env: CATALOG });
  return run.status === 0 ? undefined : run.stderr;
}

/** The signed file checked as the vendor's script checks a signed Facturae: the invoice against 3.2.2, the signature against xmldsig + XAdES 1.3.2, and xmlsec1. */
function assertSignedFacturae(xml: string): void {
  const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(xml)?.[0];
  assert.ok(signature, 'a ds:Signature');
  assert.ok(xml.trimEnd().endsWith('</ds:Signature></fe:Facturae>'), 'the last child of fe:Facturae');
  assert.equal(schemaErrors(xml.replace(signature, ''), path.join(VENDOR, 'schemas/Facturaev3_2_2.xsd')), undefined);
  // The signature element alone, with the namespaces it uses declared on it, against the XAdES schema wrapper.
  const standalone = `<?xml version="1.0" encoding="UTF-8"?>${signature.includes('xmlns:ds=') ? signature : signature.replace('<ds:Signature ', '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" ')}`;
  assert.equal(schemaErrors(standalone, path.join(VENDOR, 'checks/signature-wrapper.xsd')), undefined);
  const file = path.join(certificates.dir, `signed-${process.hrtime.bigint()}.xsig`);
  fs.writeFileSync(file, xml);
  const verdict = spawnSync('xmlsec1', ['--verify', '--enabled-key-data', 'x509', '--trusted-pem', certificates.caFile, '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties', '--id-attr:Id', 'http://www.w3.org/2000/09/xmldsig#:KeyInfo', file], { encoding: 'utf8' });
  fs.rmSync(file);
  assert.equal(verdict.status, 0, verdict.stderr);
  assert.match(xml, /<xades:Identifier>http:\/\/www\.facturae\.es\/politica_de_firma_formato_facturae\/politica_de_firma_formato_facturae_v3_1\.pdf<\/xades:Identifier>/);
  assert.match(xml, /<ds:DigestMethod Algorithm="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#sha1"\/><ds:DigestValue>Ohixl6upD6av8N7pEvDABhEL6hM=<\/ds:DigestValue>/);
  assert.match(xml, /<xades:SigningTime>/);
  assert.match(xml, /<xades:SigningCertificate>/);
  assert.match(xml, /<xades:ClaimedRole>emisor<\/xades:ClaimedRole>/);
  // Three references (the invoice, the signed properties, the KeyInfo) and the invoice's data object format (reference §1.3, §1.5).
  assert.equal([...xml.matchAll(/<ds:Reference /g)].length, 3);
  assert.match(xml, /<ds:Reference Id="Reference-\w+" URI="" Type="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#Object">/);
  assert.match(xml, /<ds:Reference URI="#KeyInfo-\w+">/);
  assert.match(xml, /<xades:DataObjectFormat ObjectReference="#Reference-\w+"><xades:Description>Factura electrónica<\/xades:Description><xades:ObjectIdentifier><xades:Identifier Qualifier="OIDAsURN">urn:oid:1\.2\.840\.10003\.5\.109\.10<\/xades:Identifier><\/xades:ObjectIdentifier><xades:MimeType>text\/xml<\/xades:MimeType>/);
  assert.match(xml, /<ds:SignatureMethod Algorithm="http:\/\/www\.w3\.org\/2001\/04\/xmldsig-more#rsa-sha256"\/>/);
}

let now = Date.parse('2027-04-12T08:00:00Z');
const clock = { now: () => now };

for (const engine of enabledEngines()) {
  const standIn = await startFaceStandIn(certificates);
  after(() => standIn.close());
  forEachEngine('Facturae signed and FACe', (t) => suite(t, standIn), {
    engines: [engine], clock,
    config: { face: { endpoint: standIn.url, caFile: certificates.caFile, pollMs: 3_600_000, timeoutMs: 5000 } },
  });
}

function suite(t: () => TestApp, standIn: FaceStandIn): void {
  const call = (method: string, url: string, body?: unknown) => t().call(method, url, body);
  const fields = (answer: { status: number; body: any }, status: number, expected: Record<string, string>) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    for (const [name, reason] of Object.entries(expected)) assert.equal(answer.body.fields?.[name], reason, JSON.stringify(answer.body));
  };
  const invoice = async (body: Record<string, unknown>) => {
    const answer = await call('POST', '/api/3/crearFacturaCliente', body);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.doc as Record<string, any>;
  };
  const signedOf = async (id: number) => {
    const answer = await t().request({ method: 'GET', url: `/api/3/exportarFacturaCliente/${id}?type=FACTURAE&firmada=1` });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.match(String(answer.headers['content-disposition']), /\.xsig"$/);
    return answer.body;
  };

  before(async () => {
    now = Date.parse('2027-04-12T08:00:00Z');
    assert.equal((await call('PATCH', '/api/3/empresa/1', { cifnif: 'B12345674', nombre: 'Ejemplo Soluciones SL', direccion: 'Calle Mayor 1', codpostal: '28013', ciudad: 'Madrid', provincia: 'Madrid' })).status, 200);
    for (const customer of [
      { codcliente: 'AYTO', nombre: 'Ayuntamiento de Pruebas', cifnif: 'P2807900B', personafisica: false },
      { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' },
      { codcliente: 'TIENDA', nombre: 'Droguería Luna', cifnif: 'B76365782', regimeniva: 'Recargo', personafisica: false },
    ]) {
      const created = await call('POST', '/api/3/cliente', customer);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
  });

  it('keeps a public body\'s DIR3 centres, checked in shape', async () => {
    fields(await call('POST', '/api/3/dir3cliente', { codcliente: 'AYTO', oficinacontable: 'L0128', organogestor: '12345678X' }), 422, { oficinacontable: 'invalid-dir3-code', organogestor: 'invalid-dir3-code' });
    const created = await call('POST', '/api/3/dir3cliente', {
      codcliente: 'AYTO', oficinacontable: 'p00000010', nombreoficinacontable: 'Oficina contable de pruebas', organogestor: 'P00000010', nombreorganogestor: 'Órgano gestor de pruebas',
      unidadtramitadora: 'P00000010', nombreunidadtramitadora: 'Unidad tramitadora de pruebas',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.oficinacontable, 'P00000010', 'stored upper-case');
    assert.equal((await call('POST', '/api/3/dir3cliente', { codcliente: 'AYTO', oficinacontable: 'P00000010' })).status, 409, 'one record a customer (or address)');
    // An address's units: only one of that customer's addresses.
    const anaAddress = (await call('GET', '/api/3/cliente/ANA')).body.idcontactofact;
    fields(await call('POST', '/api/3/dir3cliente', { codcliente: 'AYTO', idcontacto: anaAddress, oficinacontable: 'P00000010' }), 422, { idcontacto: 'not-of-customer' });
  });

  it('signs the Facturae of every invoice shape XAdES-EPES with the Facturae v3.1 policy, valid and verified', async () => {
    // No certificate yet: nothing signs.
    const first = await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Consultoría', cantidad: 3, pvpunitario: 80 }] });
    fields(await call('GET', `/api/3/exportarFacturaCliente/${first.idfactura}?type=FACTURAE&firmada=1`), 422, { certificado: 'required' });
    assert.equal((await call('GET', `/api/3/exportarFacturaCliente/${first.idfactura}?type=FACTURAE&firmada=maybe`)).body.parameter, 'firmada');
    assert.equal((await call('GET', `/api/3/exportarFacturaCliente/${first.idfactura}?type=UBL&firmada=1`)).status, 400);
    // The company's certificate, kept as VERI*FACTU keeps it (its switch off).
    assert.equal((await call('POST', '/api/3/verifactuempresa', { idempresa: 1, modo: 'off', certificado: signer.toString('base64'), certificadoclave: certificates.password })).status, 201);
    const shapes = [
      first,
      await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Formación exenta', pvpunitario: 500, codimpuesto: 'IVA0', excepcioniva: 'ES_20' }, { descripcion: 'Material', pvpunitario: 40, dtopor: 10 }], dtopor1: 5 }),
      await invoice({ codcliente: 'TIENDA', lineas: [{ descripcion: 'Jabón', cantidad: 10, pvpunitario: 3.35 }] }),
      await invoice({ codcliente: 'ANA', irpf: 15, lineas: [{ descripcion: 'Asesoría', pvpunitario: 100 }] }),
    ];
    const refund = await call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: first.idfactura, fecha: '2027-04-12' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    shapes.push(refund.body.doc);
    for (const doc of shapes) assertSignedFacturae(await signedOf(doc.idfactura));
    const [, exempt, surcharge, withholding, credit] = await Promise.all(shapes.map((doc) => signedOf(doc.idfactura)));
    assert.match(exempt!, /<TaxRate>0\.00<\/TaxRate>/);
    assert.match(surcharge!, /<EquivalenceSurcharge>/);
    assert.match(withholding!, /<TaxesWithheld>/);
    assert.match(credit!, /<Corrective>/);
    // The public body's centres, with their roles, in the buyer's party; none for a private customer.
    const centres = /<BuyerParty>[\s\S]*?<AdministrativeCentres>([\s\S]*?)<\/AdministrativeCentres>/.exec(await signedOf(first.idfactura))?.[1] ?? '';
    assert.deepEqual([...centres.matchAll(/<CentreCode>(\w+)<\/CentreCode><RoleTypeCode>(\d\d)<\/RoleTypeCode>/g)].map((match) => `${match[1]}/${match[2]}`), ['P00000010/01', 'P00000010/02', 'P00000010/03']);
    assert.doesNotMatch(surcharge!, /AdministrativeCentres/);
    // Unsigned stays the default, with the centres too.
    const unsigned = await t().request({ method: 'GET', url: `/api/3/exportarFacturaCliente/${first.idfactura}?type=FACTURAE` });
    assert.doesNotMatch(unsigned.body, /ds:Signature/);
    assert.match(unsigned.body, /<AdministrativeCentres>/);
    assert.match(String(unsigned.headers['content-disposition']), /\.xml"$/);
    // E-mailed signed: the attachment as the download is (an SMTP server configured; nothing is sent here, the attachment is made as the sender makes it).
    const mail = { mailer: 'smtp', host: '127.0.0.1', port: 2525, enc: 'tls', user: 'u', password: 'p', email: 'facturas@ejemplo.es' };
    const configured = await call('PUT', '/api/3/settings/email', { properties: mail });
    if (configured.status === 404) assert.equal((await call('POST', '/api/3/settings', { name: 'email', properties: mail })).status, 201);
    const queued = await call('POST', `/api/3/enviarFacturaCliente/${first.idfactura}`, { to: 'intervencion@ayto.example', attach: ['FACTURAE'], firmada: true });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    fields(await call('POST', `/api/3/enviarFacturaCliente/${first.idfactura}`, { to: 'intervencion@ayto.example', attach: ['PDF'], firmada: true }), 422, { firmada: 'facturae-not-attached' });
    const row = await t().app.ctx.database.kysely.selectFrom('emails_sent').selectAll().where('id', '=', queued.body.id).executeTakeFirstOrThrow();
    const [attachment] = await attachmentsOf(t().app.ctx, row);
    assert.match(attachment!.filename, /\.xsig$/);
    assertSignedFacturae(attachment!.content.toString('utf8'));
  });

  const registrations = async (idfactura: number) => (await call('GET', `/api/3/registroface?filter[idfactura]=${idfactura}&sort[id]=ASC`)).body as Array<Record<string, any>>;
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
  const attach = async (idfactura: number, name: string, type: string, content: Buffer) => {
    const uploaded = await t().request({ method: 'POST', url: '/api/3/uploadFiles', ...multipart({}, [{ field: 'files[]', name, type, content }]) });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const [file] = uploaded.json();
    assert.equal((await call('POST', '/api/3/attachedfilerelation', { idfile: file.idfile, model: 'FacturaCliente', modelid: idfactura })).status, 201);
  };

  it('refuses to send to FACe an invoice to a customer without its DIR3 centres, naming what is missing', async () => {
    const doc = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Particular', pvpunitario: 10 }] });
    fields(await call('POST', `/api/3/enviarFACe/${doc.idfactura}`), 422, { dir3: 'required' });
    assert.equal((await call('POST', '/api/3/cliente', { codcliente: 'DIPU', nombre: 'Diputación de Pruebas', cifnif: 'P0800000B', personafisica: false })).status, 201);
    assert.equal((await call('POST', '/api/3/dir3cliente', { codcliente: 'DIPU', oficinacontable: 'P00000010' })).status, 201);
    const partial = await invoice({ codcliente: 'DIPU', lineas: [{ descripcion: 'Servicio', pvpunitario: 10 }] });
    fields(await call('POST', `/api/3/enviarFACe/${partial.idfactura}`), 422, { organogestor: 'required', unidadtramitadora: 'required' });
    // FACe writes to the supplier: the company's e-mail address first.
    const whole = await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Servicio', pvpunitario: 10 }] });
    fields(await call('POST', `/api/3/enviarFACe/${whole.idfactura}`), 422, { email: 'required' });
    assert.equal((await call('PATCH', '/api/3/empresa/1', { email: 'facturas@ejemplo.es' })).status, 200);
    assert.equal(standIn.received.length, 0, 'nothing left');
  });

  it('sends the signed invoice and its PDFs to FACe with a WS-Security signature, and brings its registry number and later the paid state back', async () => {
    const doc = await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Mantenimiento de parques', cantidad: 2, pvpunitario: 1250 }] });
    await attach(doc.idfactura, 'albaran-firmado.pdf', 'application/pdf', pdf);
    const sent = await call('POST', `/api/3/enviarFACe/${doc.idfactura}`);
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    assert.deepEqual([sent.body.estado, sent.body.tramitacion, sent.body.anulacion, sent.body.unidadtramitadora], ['registrada', '1200', '4100', 'P00000010']);
    assert.match(sent.body.numeroregistro, /\S+/);
    const request = standIn.received.at(-1)!;
    assert.deepEqual([request.operation, request.signedBy, request.resultado], ['enviarFactura', 'EJEMPLO SOLUCIONES SL', '0']);
    assert.deepEqual(request.attachments, [{ nombre: 'albaran-firmado.pdf', mime: 'application/pdf', bytes: pdf.length }]);
    assertSignedFacturae(request.invoice!);
    assert.deepEqual([standIn.refused, standIn.invalid], [[], []], 'every request signed as FACe checks, the invoice valid');
    // Sent once: a second send is refused before anything leaves.
    const count = standIn.received.length;
    assert.equal((await call('POST', `/api/3/enviarFACe/${doc.idfactura}`)).body.message, 'face-already-sent');
    assert.equal(standIn.received.length, count);
    // The states, polled: accounted, then paid.
    const numero = sent.body.numeroregistro as string;
    standIn.setState(numero, '1300');
    await t().app.runJob('face-poll');
    assert.equal((await registrations(doc.idfactura)).at(-1)!.tramitacion, '1300');
    standIn.setState(numero, '2500');
    await t().app.runJob('face-poll');
    const paid = (await registrations(doc.idfactura)).at(-1)!;
    assert.deepEqual([paid.tramitacion, paid.historial.map((step: any) => step.tramitacion)], ['2500', ['1200', '1300', '2500']]);
    // On the invoice itself: its registry number and the paid state.
    const shown = (await call('GET', `/api/3/facturacliente/${doc.idfactura}`)).body.face;
    assert.deepEqual([shown.numeroregistro, shown.tramitacion, shown.estado], [numero, '2500', 'registrada']);
    const events = (await call('GET', '/api/3/events?type=face.state&latest=20')).body.events as any[];
    assert.deepEqual(events.filter((event) => event.payload.idfactura === doc.idfactura).map((event) => event.payload.tramitacion), ['1200', '1300', '2500']);
    // Paid: no longer polled, never cancelled.
    const polled = standIn.received.length;
    await t().app.runJob('face-poll');
    assert.ok(standIn.received.slice(polled).every((got) => !got.body.includes(numero)), 'a paid invoice is not asked for again');
    const refused = await call('POST', `/api/3/anularFACe/${doc.idfactura}`, { motivo: 'Duplicada' });
    assert.deepEqual([refused.status, refused.body.message, refused.body.codigo], [422, 'face-refused', '306']);
  });

  it('answers FACe\'s refusals with its code, and a service down as 502, recording both', async () => {
    assert.equal((await call('POST', '/api/3/cliente', { codcliente: 'MINIS', nombre: 'Ministerio de Pruebas', cifnif: 'S2800000E', personafisica: false })).status, 201);
    assert.equal((await call('POST', '/api/3/dir3cliente', { codcliente: 'MINIS', oficinacontable: 'E04921501', organogestor: 'E04921501', unidadtramitadora: 'E04921502' })).status, 201);
    const unknown = await invoice({ codcliente: 'MINIS', lineas: [{ descripcion: 'Suministro', pvpunitario: 300 }] });
    const refused = await call('POST', `/api/3/enviarFACe/${unknown.idfactura}`);
    assert.deepEqual([refused.status, refused.body.message, refused.body.codigo], [422, 'face-refused', '412'], JSON.stringify(refused.body));
    assert.deepEqual((await registrations(unknown.idfactura)).map((row) => [row.estado, row.error.slice(0, 3)]), [['fallida', '412']]);
    // The unit related in FACe: sent again, this time taken.
    standIn.relations.push({ oc: 'E04921501', og: 'E04921501', ut: 'E04921502' });
    const doc = await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Limpieza', pvpunitario: 900 }] });
    standIn.failures.push('drop');
    const down = await call('POST', `/api/3/enviarFACe/${doc.idfactura}`);
    assert.deepEqual([down.status, down.body.message], [502, 'face-unavailable'], JSON.stringify(down.body));
    // The request went and its answer never came: it may be at FACe (a new send would meet its duplicate refusal).
    assert.equal((await registrations(doc.idfactura))[0]!.estado, 'sinrespuesta');
    assert.equal((await call('POST', `/api/3/enviarFACe/${doc.idfactura}`)).status, 201, 'a send without an answer does not hold the invoice back');
    assert.equal((await call('POST', `/api/3/enviarFACe/${unknown.idfactura}`)).status, 201);
    // FACe holds the number already (its answer to an earlier send was lost): 409 with FACe's code.
    const held = await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Reparación', pvpunitario: 120 }] });
    const facturae = (await t().request({ method: 'GET', url: `/api/3/exportarFacturaCliente/${held.idfactura}?type=FACTURAE` })).body;
    const value = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(facturae)?.[1];
    standIn.register({ identificadorEmisor: 'B12345674', numeroFactura: value('InvoiceNumber'), serieFactura: value('InvoiceSeriesCode'), fechaExpedicion: value('IssueDate') });
    const duplicate = await call('POST', `/api/3/enviarFACe/${held.idfactura}`);
    assert.deepEqual([duplicate.status, duplicate.body.message, duplicate.body.codigo], [409, 'face-already-sent', '415'], JSON.stringify(duplicate.body));
    // More than FACe takes, or what it takes not: refused before anything leaves.
    const many = await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Obras', pvpunitario: 100 }] });
    await attach(many.idfactura, 'plano.dwg', 'application/octet-stream', Buffer.from('not a pdf'));
    fields(await call('POST', `/api/3/enviarFACe/${many.idfactura}`), 422, { anexos: 'only-pdf' });
  });

  it('asks FACe to cancel an invoice, and follows the request until the unit accepts it', async () => {
    const doc = await invoice({ codcliente: 'AYTO', lineas: [{ descripcion: 'Por error', pvpunitario: 75 }] });
    const sent = await call('POST', `/api/3/enviarFACe/${doc.idfactura}`);
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    fields(await call('POST', `/api/3/anularFACe/${doc.idfactura}`, {}), 422, { motivo: 'required' });
    fields(await call('POST', `/api/3/anularFACe/${doc.idfactura}`, { motivo: 'x'.repeat(256) }), 422, { motivo: 'too-long' });
    const asked = await call('POST', `/api/3/anularFACe/${doc.idfactura}`, { motivo: 'Emitida por error' });
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.deepEqual([asked.body.anulacion, asked.body.motivoanulacion], ['4200', 'Emitida por error']);
    assert.equal((await call('POST', `/api/3/anularFACe/${doc.idfactura}`, { motivo: 'Otra vez' })).body.codigo, '307');
    standIn.acceptCancellation(sent.body.numeroregistro);
    await t().app.runJob('face-poll');
    const row = (await registrations(doc.idfactura)).at(-1)!;
    assert.deepEqual([row.tramitacion, row.anulacion], ['3100', '4300']);
    // Cancelled there: it may be sent again (corrected).
    assert.equal((await call('POST', `/api/3/enviarFACe/${doc.idfactura}`)).status, 201);
    assert.deepEqual(standIn.refused, []);
  });
}
