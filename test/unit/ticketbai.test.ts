import assert from 'node:assert/strict';
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { desgloseOf } from '../../src/modules/ticketbai/desglose.ts';
import { crc8, qrAddress, tbaiIdentifier } from '../../src/modules/ticketbai/identifier.ts';
import { lroeKey, parseLroeAnswer, parseRestAnswer } from '../../src/modules/ticketbai/sending/answers.ts';
import { endpointOf } from '../../src/modules/ticketbai/sending/endpoints.ts';
import { lroeRequest } from '../../src/modules/ticketbai/sending/lroe-request.ts';
import { softwareOf } from '../../src/modules/ticketbai/software.ts';
import { TERRITORY } from '../../src/modules/ticketbai/territories.ts';
import { signatureValueOf } from '../../src/modules/ticketbai/xml-file.ts';

/**
 * The pure parts of TicketBAI against the treasuries' own material (shared/reference/ticketbai.md,
 * test/vendor/ticketbai): the CRC-8 and the identifier of the specification's example and of the
 * official Gipuzkoa samples, the QR addresses, the answers of the official examples, the endpoints,
 * the LROE request's headers, the breakdown's mapping.
 */

const VENDOR = new URL('../vendor/ticketbai/', import.meta.url);
const sample = (name: string) => fs.readFileSync(new URL(`examples/gipuzkoa-official-1.2.2/${name}`, VENDOR), 'utf8');
const first = sample('TicketBAI_Alta_Faktura__Alta_Factura_01_lehena__primera.xml');
const second = sample('TicketBAI_Alta_Faktura__Alta_Factura_02_hurrengoa__sucesiva.xml');

it('computes CRC-8/SMBUS as TicketBAI prints it', () => {
  for (const [text, crc] of [['123456789', '244'], ['TBAI-00000006Y-251019-btFpwP8dcLGAF-', '237'], ['', '000']] as const) assert.equal(crc8(text), crc, text);
});

it('builds the identifiers of the specification, a test service and the official samples', () => {
  assert.equal(tbaiIdentifier('00000006Y', '25-10-2019', 'btFpwP8dcLGAF'), 'TBAI-00000006Y-251019-btFpwP8dcLGAF-237');
  assert.equal(tbaiIdentifier('A99805061', '25-12-2022', 'DSI1XA1ErCoqaEln++'), 'TBAI-A99805061-251222-DSI1XA1ErCoqa-159');
  const signature = signatureValueOf(first);
  assert.ok(signature.startsWith('Yl3mXsALUBz6HBJcJo0wg2vj'));
  assert.equal(tbaiIdentifier('99999974E', '29-02-2024', signature), 'TBAI-99999974E-290224-Yl3mXsALUBz6H-135');
  // The next sample chains to the first 100 characters of this one's signature.
  assert.match(second, new RegExp(`<SignatureValueFirmaFacturaAnterior>${signature.slice(0, 100).replace(/[+/]/g, '\\$&')}</SignatureValueFirmaFacturaAnterior>`));
});

it('writes QR addresses with their CRC, the identifier percent-encoded', () => {
  const cases: Array<[string, Parameters<typeof qrAddress>[1], string]> = [
    ['https://batuz.eus/QRTBAI/', { id: 'TBAI-00000006Y-251019-btFpwP8dcLGAF-237', serie: 'T', numero: '27174', importe: '4.70' }, 'https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70&cr=007'],
    ['https://batuz.eus/QRTBAI/', { id: 'TBAI-S7836107H-020222-f5Rn+qgOvh9Kr-238', serie: 'TEST', numero: '001', importe: '1089.00' }, 'https://batuz.eus/QRTBAI/?id=TBAI-S7836107H-020222-f5Rn%2BqgOvh9Kr-238&s=TEST&nf=001&i=1089.00&cr=174'],
    ['https://batuz.eus/QRTBAI/', { id: 'TBAI-S7836107H-020222-f5Rn+qgOvh9Kr-238', numero: '001', importe: '1089.00' }, 'https://batuz.eus/QRTBAI/?id=TBAI-S7836107H-020222-f5Rn%2BqgOvh9Kr-238&nf=001&i=1089.00&cr=133'],
    [TERRITORY.gipuzkoa.qr.produccion, { id: 'TBAI-99999974E-290224-Yl3mXsALUBz6H-135', serie: 'TB-2024-S', numero: '1', importe: '1064.8' }, 'https://tbai.egoitza.gipuzkoa.eus/qr/?id=TBAI-99999974E-290224-Yl3mXsALUBz6H-135&s=TB-2024-S&nf=1&i=1064.8&cr=161'],
  ];
  for (const [base, invoice, expected] of cases) assert.equal(qrAddress(base, invoice), expected);
});

it('reads the official answers: received with warnings, a duplicate taken, refused, unavailable, not an answer', () => {
  const answer = (name: string) => fs.readFileSync(new URL(`examples/tbai-responses/${name}`, VENDOR), 'utf8');
  assert.deepEqual(parseRestAnswer(200, answer('response_with_multiple_errors.xml'), 'alta'), {
    outcomes: [{ estado: 'aceptado', codigo: '008, 010, 012', descripcion: 'Aviso: Error en verificación de firma, Aviso: Posible error de encadenamiento, Aviso: Error en verificación alta-inscripción software TicketBAI: Los datos de la empresa no coinciden.', csv: 'TBAI56b27c33-9bcc-423f-ad1e-c869bc1e050a' }],
  });
  assert.deepEqual(parseRestAnswer(200, answer('response_with_error_code_005.xml'), 'alta'), { outcomes: [{ estado: 'aceptado', codigo: '005', descripcion: 'Error: Factura ya registrada en sistema', csv: null }] });
  // 005 says an invoice is held; for a cancellation it is a refusal like any other.
  assert.equal((parseRestAnswer(200, answer('response_with_error_code_005.xml'), 'anulacion') as any).outcomes[0].estado, 'rechazado');
  const refused = answer('valid_response.xml').replace('<Estado>01</Estado>', '<Estado>01</Estado><ResultadosValidacion><Codigo>011</Codigo><Descripcion>Error</Descripcion><Azalpena>Akatsa</Azalpena></ResultadosValidacion>');
  assert.equal((parseRestAnswer(200, refused, 'alta') as any).outcomes[0].estado, 'rechazado');
  // Codes as many as the treasury lists, cut to what the column holds.
  const many = answer('valid_response.xml').replace('<Estado>01</Estado>', `<Estado>00</Estado>${'<ResultadosValidacion><Codigo>008</Codigo><Descripcion>Aviso</Descripcion><Azalpena>Abisua</Azalpena></ResultadosValidacion>'.repeat(40)}`);
  assert.equal((parseRestAnswer(200, many, 'alta') as any).outcomes[0].codigo.length, 100);
  assert.deepEqual(parseRestAnswer(200, refused.replace('<Codigo>011</Codigo>', '<Codigo>006</Codigo>'), 'alta'), { unavailable: '006 Error' });
  assert.deepEqual(parseRestAnswer(503, '', 'alta'), { unavailable: 'HTTP 503' });
  assert.deepEqual(parseRestAnswer(200, '<html>proxy error</html>', 'alta'), { unavailable: 'unexpected answer <html>' });
});

it('reads Batuz\'s official LROE answers record by record', () => {
  const body = (name: string) => fs.readFileSync(new URL(`examples/lroe-responses/${name}`, VENDOR));
  const correct = body('Ejemplo_1_LROE_PF_140_IngresosConFacturaConSG_79732487C_Correcta_Resp.gz');
  const keys = [lroeKey('A2022', '0399', '06-05-2022'), lroeKey('A2022', '0400', '12-05-2022'), lroeKey('A2022', '0401', '13-05-2022')];
  const read = parseLroeAnswer(200, { 'eus-bizkaia-n3-tipo-respuesta': 'Correcto', 'eus-bizkaia-n3-numero-registro': 'N3-1' }, correct, keys, 'alta') as any;
  assert.deepEqual(read.outcomes.map((outcome: any) => [outcome.estado, outcome.csv]), [['aceptado', 'N3-1'], ['aceptado', 'N3-1'], ['pendiente', null]], 'a record the answer does not name goes again');
  // Batuz's partly correct example: the second record is a duplicate (B4_2000003), which means Batuz holds it.
  const partial = body('Ejemplo_1_LROE_PJ_240_FacturasEmitidasConSG_B00000034_Parc_Correcta_Resp.gz');
  const sent = [lroeKey('B2022', '0100', '30-01-2022'), lroeKey('B2022', '0101', '05-02-2022')];
  const mixed = parseLroeAnswer(200, { 'eus-bizkaia-n3-tipo-respuesta': 'Parcialmente correcto' }, partial, sent, 'alta') as any;
  assert.deepEqual(mixed.outcomes.map((outcome: any) => [outcome.estado, outcome.codigo, outcome.descripcion]), [['aceptado', null, null], ['aceptado', 'B4_2000003', 'Registro duplicado.']]);
  const asCancellations = parseLroeAnswer(200, { 'eus-bizkaia-n3-tipo-respuesta': 'Parcialmente correcto' }, partial, sent, 'anulacion') as any;
  assert.deepEqual(asCancellations.outcomes.map((outcome: any) => outcome.estado), ['aceptado', 'rechazado']);
  assert.deepEqual(parseLroeAnswer(200, { 'eus-bizkaia-n3-tipo-respuesta': 'Incorrecto', 'eus-bizkaia-n3-codigo-respuesta': 'B4_1000004' }, Buffer.alloc(0), keys, 'alta'), { unavailable: 'B4_1000004' });
  const schema = parseLroeAnswer(200, { 'eus-bizkaia-n3-tipo-respuesta': 'Incorrecto', 'eus-bizkaia-n3-codigo-respuesta': 'B4_1000001', 'eus-bizkaia-n3-mensaje-respuesta': 'Esquema' }, Buffer.alloc(0), keys.slice(0, 1), 'alta');
  assert.deepEqual(schema, { outcomes: [{ estado: 'rechazado', codigo: 'B4_1000001', descripcion: 'Esquema', csv: null }] });
  assert.deepEqual(parseLroeAnswer(502, {}, Buffer.alloc(0), keys, 'alta'), { unavailable: 'HTTP 502, no eus-bizkaia-n3-tipo-respuesta' });
  // The entry platform refusing the taxpayer (a power of attorney missing): the files wait, none is refused.
  assert.deepEqual(parseLroeAnswer(200, { 'eus-bizkaia-n3-tipo-respuesta': 'Incorrecto', 'eus-bizkaia-n3-codigo-respuesta': 'N3_0000011', 'eus-bizkaia-n3-mensaje-respuesta': 'Sin apoderamiento' }, Buffer.alloc(0), keys, 'alta'), { unavailable: 'N3_0000011 Sin apoderamiento' });
  // An answer that names no record leaves every file to go again.
  assert.deepEqual((parseLroeAnswer(200, { 'eus-bizkaia-n3-tipo-respuesta': 'Correcto' }, Buffer.alloc(0), keys.slice(0, 1), 'alta') as any).outcomes.map((outcome: any) => outcome.estado), ['pendiente']);
});

it('sends to each treasury\'s services, or to TICKETBAI_ENDPOINT_<TERRITORIO> given as an origin, the alta service or a prefix', () => {
  const config = (endpoints: Record<string, string> = {}) => ({ ...loadConfig({}).ticketbai, endpoints });
  const cases: Array<[Record<string, string>, 'araba' | 'bizkaia' | 'gipuzkoa', 'pruebas' | 'produccion', 'alta' | 'anulacion' | 'zuzendu-alta' | 'zuzendu-baja', string | undefined]> = [
    [{}, 'araba', 'produccion', 'alta', 'https://ticketbai.araba.eus/TicketBAI/v1/facturas/'],
    [{}, 'araba', 'pruebas', 'zuzendu-baja', 'https://pruebas-ticketbai.araba.eus/TicketBAI/v1/anulaciones/baja'],
    [{}, 'gipuzkoa', 'pruebas', 'anulacion', 'https://tbai-z.prep.gipuzkoa.eus/sarrerak/baja'],
    [{}, 'bizkaia', 'produccion', 'anulacion', 'https://sarrerak.bizkaia.eus/N3B4000M/aurkezpena'],
    [{}, 'bizkaia', 'pruebas', 'zuzendu-alta', undefined],
    [{ gipuzkoa: 'https://127.0.0.1:8443' }, 'gipuzkoa', 'produccion', 'zuzendu-alta', 'https://127.0.0.1:8443/sarrerak/zuzendu-alta'],
    [{ araba: 'https://proxy.example/tbai/TicketBAI/v1/facturas' }, 'araba', 'pruebas', 'anulacion', 'https://proxy.example/tbai/TicketBAI/v1/anulaciones/'],
    [{ bizkaia: 'https://proxy.example/batuz' }, 'bizkaia', 'pruebas', 'alta', 'https://proxy.example/batuz/N3B4000M/aurkezpena'],
  ];
  for (const [endpoints, territory, environment, operation, expected] of cases) assert.equal(endpointOf(config(endpoints), territory, environment, operation), expected, `${territory} ${operation}`);
  assert.equal(loadConfig({ TICKETBAI_ENDPOINT_ARABA: 'https://127.0.0.1:9/' }).ticketbai.endpoints.araba, 'https://127.0.0.1:9');
  for (const bad of ['http://127.0.0.1:9', 'https://user:pw@host', 'https://host/?q=1', 'not a url']) assert.throws(() => loadConfig({ TICKETBAI_ENDPOINT_GIPUZKOA: bad }), ConfigError, bad);
  assert.throws(() => loadConfig({ TICKETBAI_DESARROLLADOR_NIF: 'A998' }), ConfigError);
});

it('signs with the software as registered, or a treasury\'s published test data in its test environment only', () => {
  const config = (software: Record<string, string> = {}) => ({ ...loadConfig({}).ticketbai, software });
  assert.deepEqual(softwareOf(config(), 'bizkaia', 'pruebas'), { LicenciaTBAI: 'TBAIBI00000000PRUEBA', EntidadDesarrolladora: { NIF: 'A99800005' }, Nombre: 'SOFTWARE GARANTE TICKETBAI PRUEBA', Version: '1.0' });
  assert.equal(softwareOf(config(), 'bizkaia', 'produccion'), undefined);
  assert.equal(softwareOf(config(), 'araba', 'pruebas'), undefined, 'Araba publishes no test licence');
  const registered = softwareOf(config({ licence: 'TBAIGI0000000000001', developerNif: 'B12345674', name: 'Invoicing API', version: '2.1' }), 'araba', 'produccion');
  assert.deepEqual(registered, { LicenciaTBAI: 'TBAIGI0000000000001', EntidadDesarrolladora: { NIF: 'B12345674' }, Nombre: 'Invoicing API', Version: '2.1' });
});

it('wraps files in a gzip LROE request with the headers naming the taxpayer, the book and the year', () => {
  const request = lroeRequest({ modelo: '140', operation: 'alta', ejercicio: '2027', taxpayer: { nif: '11111111H', name: 'Ane Arriola Lejardi' }, epigrafe: '1234', files: ['<a/>', '<b>é</b>'] });
  assert.equal(request.headers['content-encoding'], 'gzip');
  assert.deepEqual(JSON.parse(request.headers['eus-bizkaia-n3-data']!), { con: 'LROE', apa: '1.1', inte: { nif: '11111111H', nrs: 'Ane Arriola Lejardi' }, drs: { mode: '140', ejer: '2027' } });
  const xml = gunzipSync(request.body).toString('utf8');
  assert.match(xml, /<lrpj:LROEPF140IngresosConFacturaConSGAltaPeticion xmlns:lrpj="https:\/\/www\.batuz\.eus\/fitxategiak\/batuz\/LROE\/esquemas\/LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2\.xsd">/);
  assert.match(xml, /<Operacion>A00<\/Operacion><Version>1\.0<\/Version><Ejercicio>2027<\/Ejercicio>/);
  assert.ok(xml.includes(`<Ingreso><TicketBai>${Buffer.from('<b>é</b>').toString('base64')}</TicketBai><Renta><DetalleRenta><Epigrafe>1234</Epigrafe></DetalleRenta></Renta></Ingreso>`));
  // A name outside Latin-1 still makes a valid header.
  const named = lroeRequest({ modelo: '240', operation: 'anulacion', ejercicio: '2027', taxpayer: { nif: 'B12345674', name: 'Łódź – Ejemplo' }, files: ['<a/>'] });
  assert.ok(/^[\x20-\x7e]+$/.test(named.headers['eus-bizkaia-n3-data']!));
  assert.equal(JSON.parse(named.headers['eus-bizkaia-n3-data']!).inte.nrs, 'Łódź – Ejemplo');
  assert.match(gunzipSync(named.body).toString('utf8'), /<Operacion>AN0<\/Operacion>.*<FacturaEmitida><AnulacionTicketBai>/);
});

it('maps the VERI*FACTU breakdown to TicketBAI\'s: subject by rate, exempt and not subject by cause, keys', () => {
  const { desglose, importe, claves } = desgloseOf([
    { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S1', TipoImpositivo: '21.00', BaseImponibleOimporteNoSujeto: '100.00', CuotaRepercutida: '21.00' },
    { Impuesto: '01', ClaveRegimen: '18', CalificacionOperacion: 'S1', TipoImpositivo: '10.00', BaseImponibleOimporteNoSujeto: '50.00', CuotaRepercutida: '5.00', TipoRecargoEquivalencia: '1.40', CuotaRecargoEquivalencia: '0.70' },
    { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S2', TipoImpositivo: '0.00', BaseImponibleOimporteNoSujeto: '30.00', CuotaRepercutida: '0.00' },
    { Impuesto: '01', ClaveRegimen: '02', OperacionExenta: 'E2', BaseImponibleOimporteNoSujeto: '40.00' },
    { Impuesto: '01', ClaveRegimen: '01', OperacionExenta: 'E1', BaseImponibleOimporteNoSujeto: '10.00' },
    { Impuesto: '01', ClaveRegimen: '01', OperacionExenta: 'E1', BaseImponibleOimporteNoSujeto: '5.00' },
    { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'N2', BaseImponibleOimporteNoSujeto: '7.00' },
  ]);
  assert.equal(importe, '268.70');
  assert.deepEqual(claves, ['01', '01', '01', '02', '01', '01', '01']);
  assert.deepEqual(desglose, {
    Sujeta: {
      Exenta: { DetalleExenta: [{ CausaExencion: 'E2', BaseImponible: '40.00' }, { CausaExencion: 'E1', BaseImponible: '15.00' }] },
      NoExenta: {
        DetalleNoExenta: [
          { TipoNoExenta: 'S1', DesgloseIVA: { DetalleIVA: [{ BaseImponible: '100.00', TipoImpositivo: '21.00', CuotaImpuesto: '21.00' }, { BaseImponible: '50.00', TipoImpositivo: '10.00', CuotaImpuesto: '5.00', TipoRecargoEquivalencia: '1.40', CuotaRecargoEquivalencia: '0.70' }] } },
          { TipoNoExenta: 'S2', DesgloseIVA: { DetalleIVA: [{ BaseImponible: '30.00', TipoImpositivo: '0.00', CuotaImpuesto: '0.00' }] } },
        ],
      },
    },
    NoSujeta: { DetalleNoSujeta: [{ Causa: 'RL', Importe: '7.00' }] },
  });
  assert.throws(() => desgloseOf([{ Impuesto: '03', CalificacionOperacion: 'S1', BaseImponibleOimporteNoSujeto: '1.00' }]), (error: any) => error.details?.fields?.lineas === 'tax-not-in-ticketbai');
});
