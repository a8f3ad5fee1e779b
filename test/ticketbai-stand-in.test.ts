import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import path from 'node:path';
import { after, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { makeCertificates } from './helpers/aeat-stand-in.ts';
import { crc8, startTicketbaiStandIn, tbaiIdentifierOf, ticketbaiSchemaErrors, xmlsecVerifies, type TicketbaiStandIn } from './helpers/ticketbai-stand-in.ts';

/**
 * The TicketBAI stand-in itself (test/helpers/ticketbai-stand-in.ts), on the treasuries' official
 * samples and the reference's worked examples (shared/reference/ticketbai.md sections 2 to 4): its
 * schema check, CRC-8 and identifier, signature check, and the answers of a Gipuzkoa, an Araba and a
 * Bizkaia stand-in over mutual TLS, each answer valid against the treasuries' answer schemas.
 */
const VENDOR = path.join(import.meta.dirname, 'vendor/ticketbai');
const SAMPLES = path.join(VENDOR, 'examples/gipuzkoa-official-1.2.2');
const sample = (name: string) => fs.readFileSync(path.join(SAMPLES, name), 'utf8');
const ALTA_01 = sample('TicketBAI_Alta_Faktura__Alta_Factura_01_lehena__primera.xml');
const ALTA_02 = sample('TicketBAI_Alta_Faktura__Alta_Factura_02_hurrengoa__sucesiva.xml');
const ANULACION_02 = sample('TicketBAI_Baligabetzea_Faktura__Anulacion_Factura_02.xml');
const ZUZENDU_BAJA = sample('ZuzenduBaja_Adibidea_Ejemplo.xml');

const certificates = makeCertificates();
const standIns: TicketbaiStandIn[] = [];
after(async () => {
  await Promise.all(standIns.map((standIn) => standIn.close()));
  fs.rmSync(certificates.dir, { recursive: true, force: true });
});
async function start(territory: 'araba' | 'bizkaia' | 'gipuzkoa') {
  const standIn = await startTicketbaiStandIn(certificates, territory);
  standIns.push(standIn);
  return standIn;
}

const root = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
const text = (xml: string, name: string) => Array.from(root(xml).getElementsByTagName(name)).map((node) => node.textContent ?? '');
const signatureOf = (xml: string) => text(xml, 'ds:SignatureValue')[0]!.replace(/\s+/g, '');

/** xmllint on a document against one of the vendor schemas; undefined when valid. */
function schemaErrors(xml: string, schema: string): string | undefined {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(VENDOR, schema), '-'], { input: xml, encoding: 'utf8' });
  return run.status === 0 ? undefined : run.stderr;
}

interface Reply { status: number; headers: IncomingHttpHeaders; body: Buffer }
function post(url: string, body: string | Buffer, headers: Record<string, string>, pfx = certificates.clientP12): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers, pfx, passphrase: certificates.password, ca: fs.readFileSync(certificates.caFile) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}
const XML = { 'content-type': 'application/xml;charset=UTF-8' };

/** The Salida of a TicketBaiResponse, after checking it against TicketBAIResponse.xsd. */
function salida(reply: Reply) {
  assert.equal(reply.status, 200);
  const xml = reply.body.toString('utf8');
  assert.equal(schemaErrors(xml, 'xsd/ticketbai-1.2/TicketBAIResponse.xsd'), undefined, xml);
  const at = (name: string) => text(xml, name)[0];
  return { estado: at('Estado'), identificador: at('IdentificadorTBAI'), csv: at('CSV'), codigos: text(xml, 'Codigo'), fecha: at('FechaRecepcion') };
}

const POLICIES = {
  araba: ['https://ticketbai.araba.eus/tbai/sinadura/', '4Vk3uExj7tGn9DyUCPDsV9HRmK6KZfYdRiW3StOjcQA='],
  bizkaia: ['https://www.batuz.eus/fitxategiak/batuz/ticketbai/sinadura_elektronikoaren_zehaztapenak_especificaciones_de_la_firma_electronica_v1_0.pdf', 'Quzn98x3PMbSHwbUzaj5f5KOpiH0u8bvmwbbbNkO9Es='],
  gipuzkoa: ['https://www.gipuzkoa.eus/ticketbai/sinadura', 'vSe1CH7eAFVkGN0X2Y7Nl9XGUoBnziDA5BGUSsyt8mg='],
} as const;

/**
 * Invoice `numero` of sample 01's series, optionally chained, signed XAdES-EPES with the territory's
 * policy by the test client certificate (xmlsec1 from a template: the official samples' own
 * signatures are by another authority, so a positive signature check needs files signed here).
 */
function signedInvoice(numero: string, territory: keyof typeof POLICIES, chain?: { numero: string; firma: string }): string {
  const [identifier, digest] = POLICIES[territory];
  let xml = `${ALTA_01.slice(0, ALTA_01.indexOf('<ds:Signature'))}</T:TicketBai>`.replace('<NumFactura>1</NumFactura>', `<NumFactura>${numero}</NumFactura>`);
  if (chain) {
    xml = xml.replace('<HuellaTBAI>', '<HuellaTBAI><EncadenamientoFacturaAnterior><SerieFacturaAnterior>TB-2024-S</SerieFacturaAnterior>' +
      `<NumFacturaAnterior>${chain.numero}</NumFacturaAnterior><FechaExpedicionFacturaAnterior>29-02-2024</FechaExpedicionFacturaAnterior>` +
      `<SignatureValueFirmaFacturaAnterior>${chain.firma}</SignatureValueFirmaFacturaAnterior></EncadenamientoFacturaAnterior>`);
  }
  const template = '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="Sig"><ds:SignedInfo>' +
    '<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>' +
    '<ds:Reference URI=""><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/></ds:Transforms>' +
    '<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference>' +
    '<ds:Reference Type="http://uri.etsi.org/01903#SignedProperties" URI="#Sig-SignedProperties"><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference>' +
    '</ds:SignedInfo><ds:SignatureValue/><ds:KeyInfo><ds:X509Data/></ds:KeyInfo><ds:Object>' +
    '<xades:QualifyingProperties xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" Target="#Sig"><xades:SignedProperties Id="Sig-SignedProperties"><xades:SignedSignatureProperties>' +
    '<xades:SigningTime>2024-02-29T11:05:17+01:00</xades:SigningTime><xades:SignaturePolicyIdentifier><xades:SignaturePolicyId>' +
    `<xades:SigPolicyId><xades:Identifier>${identifier}</xades:Identifier></xades:SigPolicyId>` +
    `<xades:SigPolicyHash><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>${digest}</ds:DigestValue></xades:SigPolicyHash>` +
    '</xades:SignaturePolicyId></xades:SignaturePolicyIdentifier></xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties></ds:Object></ds:Signature>';
  const file = path.join(certificates.dir, `template-${numero}-${territory}.xml`);
  fs.writeFileSync(file, xml.replace('</T:TicketBai>', `${template}</T:TicketBai>`));
  const run = spawnSync('xmlsec1', ['--sign', '--privkey-pem', `${path.join(certificates.dir, 'client.key')},${certificates.clientCertFile}`,
    '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

it('accepts the official samples against the schema of their kind, and refuses one element short or the wrong kind', () => {
  assert.equal(ticketbaiSchemaErrors(ALTA_01, 'alta'), undefined);
  assert.equal(ticketbaiSchemaErrors(ALTA_02, 'alta'), undefined);
  assert.equal(ticketbaiSchemaErrors(ANULACION_02, 'anulacion'), undefined);
  assert.equal(ticketbaiSchemaErrors(sample('ZuzenduSubsanar_Adibidea_Ejemplo.xml'), 'zuzendu-alta'), undefined);
  assert.equal(ticketbaiSchemaErrors(sample('ZuzenduModificar_Adibidea_Ejemplo.xml'), 'zuzendu-alta'), undefined);
  assert.equal(ticketbaiSchemaErrors(ZUZENDU_BAJA, 'zuzendu-baja'), undefined);
  assert.match(ticketbaiSchemaErrors(ALTA_01.replace(/<HoraExpedicionFactura>[^<]*<\/HoraExpedicionFactura>/, ''), 'alta') ?? '', /HoraExpedicionFactura|FacturaSimplificada/);
  assert.match(ticketbaiSchemaErrors(ZUZENDU_BAJA.replace(/<SignatureValueFirmaAnulacion>[^<]*<\/SignatureValueFirmaAnulacion>/, ''), 'zuzendu-baja') ?? '', /SignatureValueFirmaAnulacion/);
  assert.match(ticketbaiSchemaErrors(ALTA_01, 'anulacion') ?? '', /No matching global declaration/);
  // The Zuzendu schema imports the alta one, so xmllint alone would take an alta file as valid.
  assert.match(ticketbaiSchemaErrors(ALTA_01, 'zuzendu-alta') ?? '', /not the zuzendu-alta file's \{urn:ticketbai:zuzendu-alta\}SubsanacionModificacionTicketBAI/);
});

it('computes the CRC-8, TBAI identifier and chaining of the reference\'s worked examples', () => {
  assert.equal(crc8('123456789'), '244');
  assert.equal(crc8('TBAI-00000006Y-251019-btFpwP8dcLGAF-'), '237');
  assert.equal(crc8('https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70'), '007');
  assert.equal(crc8('TBAI-A99805061-251222-DSI1XA1ErCoqa-'), '159');
  assert.equal(tbaiIdentifierOf(ALTA_01), 'TBAI-99999974E-290224-Yl3mXsALUBz6H-135');
  assert.equal(text(ALTA_02, 'SignatureValueFirmaFacturaAnterior')[0], signatureOf(ALTA_01).slice(0, 100));
  assert.equal(text(ALTA_02, 'SignatureValueFirmaFacturaAnterior')[0], 'Yl3mXsALUBz6HBJcJo0wg2vj+1FTSSLfPMg4OFICZvcyfXJs7+C+xdsLMXtPLKY7+mbuFHMF9IZwEbSbO2TBBzfBNILJ4/QuR7tt');
});

it('verifies a signature by the test authority with xmlsec1, and refuses a changed byte and the official samples', () => {
  const signed = signedInvoice('1', 'gipuzkoa');
  assert.equal(ticketbaiSchemaErrors(signed, 'alta'), undefined);
  const verdict = xmlsecVerifies(signed, certificates.caFile);
  assert.ok(verdict.ok, verdict.output);
  assert.equal(xmlsecVerifies(signed.replace('<ImporteTotalFactura>1064.8<', '<ImporteTotalFactura>1064.9<'), certificates.caFile).ok, false);
  // The official samples are signed by Izenpe's test authority, and xmlsec1 cannot follow their
  // document reference's transform order (reference section 2.3): refused, whatever the authority.
  assert.equal(xmlsecVerifies(ALTA_01, certificates.caFile).ok, false);
});

it('answers Gipuzkoa REST as the service does, over mutual TLS only', async () => {
  const standIn = await start('gipuzkoa');
  const first = salida(await post(`${standIn.url}/sarrerak/alta`, ALTA_01, XML));
  assert.equal(first.estado, '00');
  assert.equal(first.identificador, 'TBAI-99999974E-290224-Yl3mXsALUBz6H-135');
  assert.match(first.csv ?? '', /^TBAI.{1,36}$/);
  assert.match(first.fecha ?? '', /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
  // The official sample's signature is by another authority (above): warning 008 and a bad
  // signature on record are what the stand-in must say of it; files of our sender must show none.
  assert.deepEqual(first.codigos, ['008']);
  assert.equal(standIn.badSignatures.length, 1);
  assert.deepEqual({ ...standIn.received[0], xml: undefined, signatureValue: undefined }, {
    path: '/sarrerak/alta', operation: 'alta', nif: '99999974E', serie: 'TB-2024-S', numero: '1', fecha: '29-02-2024',
    client: 'EJEMPLO SOLUCIONES SL', xml: undefined, signatureValue: undefined, outcome: '00', codes: ['008'],
  });

  const again = salida(await post(`${standIn.url}/sarrerak/alta`, ALTA_01, XML));
  assert.deepEqual([again.estado, again.codigos, again.identificador], ['01', ['005'], undefined]);

  const second = salida(await post(`${standIn.url}/sarrerak/alta`, ALTA_02, XML));
  assert.deepEqual([second.estado, second.codigos], ['00', ['008']]);
  assert.deepEqual(standIn.received[2]!.chain, { serie: 'TB-2024-S', numero: '1', fecha: '29-02-2024', firma: signatureOf(ALTA_01).slice(0, 100) });
  assert.deepEqual(standIn.chainErrors, []);

  const cancelled = salida(await post(`${standIn.url}/sarrerak/baja`, ANULACION_02, XML));
  assert.deepEqual([cancelled.estado, cancelled.identificador], ['00', undefined]);
  assert.deepEqual(salida(await post(`${standIn.url}/sarrerak/baja`, ANULACION_02, XML)).codigos, ['019']);
  // A Zuzendu for an invoice this stand-in never saw (the sample's other series): refused.
  assert.deepEqual(salida(await post(`${standIn.url}/sarrerak/zuzendu-baja`, ZUZENDU_BAJA, XML)).codigos, ['018']);
  assert.deepEqual(standIn.invalid, []);

  // Another authority's certificate: the handshake is refused (TLS 1.3 reports it as a reset).
  await assert.rejects(post(`${standIn.url}/sarrerak/alta`, ALTA_01, XML, certificates.strangerP12), (error: NodeJS.ErrnoException) => /ECONNRESET|ERR_SSL|EPROTO/.test(error.code ?? ''));
  assert.equal(standIn.received.length, 6);
});

it('answers Araba REST for files of our own signing: identifier, chaining, test controls', async () => {
  const standIn = await start('araba');
  const alta = '/TicketBAI/v1/facturas/';
  const first = signedInvoice('1', 'araba');
  const answered = salida(await post(`${standIn.url}${alta}`, first, XML));
  assert.deepEqual([answered.estado, answered.codigos, answered.identificador], ['00', [], tbaiIdentifierOf(first)]);
  const second = signedInvoice('2', 'araba', { numero: '1', firma: signatureOf(first).slice(0, 100) });
  assert.deepEqual(salida(await post(`${standIn.url}${alta}`, second, XML)).codigos, []);
  assert.deepEqual([standIn.badSignatures, standIn.chainErrors, standIn.invalid], [[], [], []]);

  const misChained = signedInvoice('3', 'araba', { numero: '1', firma: signatureOf(first).slice(0, 100) });
  assert.deepEqual(salida(await post(`${standIn.url}${alta}`, misChained, XML)).codigos, ['010']);
  assert.equal(standIn.chainErrors.length, 1);
  assert.match(standIn.chainErrors[0]!, /TB-2024-S\/1 .* last alta held .* TB-2024-S\/2/);
  const fourth = signedInvoice('4', 'gipuzkoa', { numero: '3', firma: signatureOf(misChained).slice(0, 100) });
  assert.deepEqual(salida(await post(`${standIn.url}${alta}`, fourth, XML)).codigos, ['008']);
  assert.match(standIn.badSignatures[0] ?? '', /signature policy https:\/\/www\.gipuzkoa\.eus/);

  standIn.failures.push('down', 'http-503', 'drop');
  standIn.rejectNext.push({ codigo: '004', descripcion: 'Faltan datos para el identificador' });
  const fifth = signedInvoice('5', 'araba', { numero: '4', firma: signatureOf(fourth).slice(0, 100) });
  assert.deepEqual(salida(await post(`${standIn.url}${alta}`, fifth, XML)).codigos, ['006']);
  assert.equal((await post(`${standIn.url}${alta}`, fifth, XML)).status, 503);
  await assert.rejects(post(`${standIn.url}${alta}`, fifth, XML));
  const forced = salida(await post(`${standIn.url}${alta}`, fifth, XML));
  assert.deepEqual([forced.estado, forced.codigos], ['01', ['004']]);
  assert.equal(standIn.received.length, 5);
});

/** A gzip LROE 240 alta request wrapping the files, with the Batuz headers (reference section 6.2). */
function lroe240(files: string[], ejer = '2024') {
  const ns = 'https://www.batuz.eus/fitxategiak/batuz/LROE/esquemas/LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd';
  const xml = `<?xml version="1.0" encoding="UTF-8"?><lrpjfecsgap:LROEPJ240FacturasEmitidasConSGAltaPeticion xmlns:lrpjfecsgap="${ns}"><Cabecera>` +
    '<Modelo>240</Modelo><Capitulo>1</Capitulo><Subcapitulo>1.1</Subcapitulo><Operacion>A00</Operacion><Version>1.0</Version>' +
    `<Ejercicio>${ejer}</Ejercicio><ObligadoTributario><NIF>99999974E</NIF><ApellidosNombreRazonSocial>GEZURREZKO JAULKITZAILEA</ApellidosNombreRazonSocial></ObligadoTributario></Cabecera>` +
    `<FacturasEmitidas>${files.map((file) => `<FacturaEmitida><TicketBai>${Buffer.from(file).toString('base64')}</TicketBai></FacturaEmitida>`).join('')}</FacturasEmitidas>` +
    '</lrpjfecsgap:LROEPJ240FacturasEmitidasConSGAltaPeticion>';
  const headers = {
    'content-type': 'application/octet-stream', 'content-encoding': 'gzip', 'accept-encoding': 'gzip', 'eus-bizkaia-n3-version': '1.0', 'eus-bizkaia-n3-content-type': 'application/xml',
    'eus-bizkaia-n3-data': JSON.stringify({ con: 'LROE', apa: '1.1', inte: { nif: '99999974E', nrs: 'GEZURREZKO JAULKITZAILEA' }, drs: { mode: '240', ejer } }),
  };
  return { body: gzipSync(xml), headers };
}

/** The records of a gzip LROE 240 alta answer, after checking it against the answer schema. */
function registros(reply: Reply) {
  assert.equal(reply.status, 200);
  const xml = gunzipSync(reply.body).toString('utf8');
  assert.equal(schemaErrors(xml, 'xsd/lroe/LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaRespuesta_V1_0_1.xsd'), undefined, xml);
  return Array.from(root(xml).getElementsByTagName('Registro')).map((registro) => ({
    numero: registro.getElementsByTagName('NumFactura')[0]?.textContent,
    estado: registro.getElementsByTagName('EstadoRegistro')[0]?.textContent,
    codigo: registro.getElementsByTagName('CodigoErrorRegistro')[0]?.textContent ?? undefined,
    presentacion: (registro.parentNode!.parentNode as Element).getElementsByTagName('DatosPresentacion').length,
  }));
}

it('answers Bizkaia LROE as Batuz does: gzip, per record, with the n3 headers', async () => {
  const standIn = await start('bizkaia');
  const { body, headers } = lroe240([ALTA_01]);
  const reply = await post(`${standIn.url}/N3B4000M/aurkezpena`, body, headers);
  // The official sample: signature of another authority, and Gipuzkoa's policy rather than Bizkaia's.
  assert.deepEqual(registros(reply), [{ numero: '1', estado: 'AceptadoConErrores', codigo: 'B4_2000070', presentacion: 1 }]);
  assert.equal(reply.headers['eus-bizkaia-n3-tipo-respuesta'], 'Parcialmente correcto');
  assert.match(String(reply.headers['eus-bizkaia-n3-identificativo']), /^\d+$/);
  assert.equal(standIn.badSignatures.length, 1);
  assert.deepEqual(standIn.received[0]!.lroe?.mode, '240');
  assert.deepEqual([standIn.received[0]!.outcome, standIn.received[0]!.codes], ['AceptadoConErrores', ['B4_2000070']]);
  assert.deepEqual(standIn.invalid, []);

  const again = await post(`${standIn.url}/N3B4000M/aurkezpena`, body, headers);
  assert.deepEqual(registros(again), [{ numero: '1', estado: 'Incorrecto', codigo: 'B4_2000003', presentacion: 0 }]);
  assert.deepEqual([again.headers['eus-bizkaia-n3-tipo-respuesta'], again.headers['eus-bizkaia-n3-codigo-respuesta'], again.headers['eus-bizkaia-n3-identificativo']], ['Incorrecto', 'B4_1000002', undefined]);

  const broken = await post(`${standIn.url}/N3B4000M/aurkezpena`, Buffer.from('not gzip'), headers);
  assert.deepEqual([broken.status, broken.headers['eus-bizkaia-n3-tipo-respuesta'], broken.headers['eus-bizkaia-n3-codigo-respuesta'], broken.body.length], [200, 'Incorrecto', 'B4_1000003', 0]);
  assert.equal(standIn.invalid.length, 1);
});

it('answers Bizkaia Correcto for files of our own signing under its policy, and refuses a broken chain', async () => {
  const standIn = await start('bizkaia');
  const first = signedInvoice('1', 'bizkaia');
  const second = signedInvoice('2', 'bizkaia', { numero: '1', firma: signatureOf(first).slice(0, 100) });
  const reply = await post(`${standIn.url}/N3B4000M/aurkezpena`, lroe240([first, second]).body, lroe240([]).headers);
  assert.deepEqual(registros(reply).map((registro) => registro.estado), ['Correcto', 'Correcto']);
  assert.equal(reply.headers['eus-bizkaia-n3-tipo-respuesta'], 'Correcto');
  assert.ok(reply.headers['eus-bizkaia-n3-numero-registro']);
  const misChained = signedInvoice('3', 'bizkaia', { numero: '1', firma: signatureOf(first).slice(0, 100) });
  assert.deepEqual(registros(await post(`${standIn.url}/N3B4000M/aurkezpena`, lroe240([misChained]).body, lroe240([]).headers)).map((registro) => registro.codigo), ['B4_2000060']);
  assert.deepEqual([standIn.badSignatures, standIn.chainErrors.length, standIn.invalid], [[], 1, []]);

  // Ejercicio 2024 in the request, 2025 in its header: the whole request is refused and reported.
  const wrongYear = await post(`${standIn.url}/N3B4000M/aurkezpena`, lroe240([misChained]).body, lroe240([], '2025').headers);
  assert.deepEqual([wrongYear.headers['eus-bizkaia-n3-tipo-respuesta'], wrongYear.headers['eus-bizkaia-n3-codigo-respuesta']], ['Incorrecto', 'B4_1000001']);
  assert.match(standIn.invalid.join('\n'), /Ejercicio 2024 is not drs\.ejer 2025/);
});
