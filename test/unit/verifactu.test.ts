import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { classify, desglose, recordTotals, type Classification, type LineTax } from '../../src/modules/verifactu/desglose.ts';
import { hashInput, huella } from '../../src/modules/verifactu/huella.ts';
import { qrUrl } from '../../src/modules/verifactu/qr-url.ts';
import { registrationTime, territoryOf, zonedStamp } from '../../src/modules/verifactu/registration-time.ts';
import { endpointOf } from '../../src/modules/verifactu/sending/endpoints.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import fs from 'node:fs';
import { spanishTaxId } from '../../src/modules/fiscal/spanish-tax-id.ts';
import { xmlAmount, xmlText } from '../../src/modules/verifactu/xml-tree.ts';
import { dec } from '../../src/models/round.ts';

/**
 * The pure parts of VERI*FACTU against the AEAT's own examples where it publishes them: the hash
 * (the three worked examples of "Detalle de las especificaciones técnicas para generación de la
 * huella o hash de los registros de facturación", v0.1.2), the QR address, tax ids, timestamps,
 * and the breakdown's rules (validations 1198, 1237, 1238, 1286 of "Validaciones y errores").
 */

it('computes the Huella of the AEAT\'s worked examples: a first alta, a chained alta, an anulación', () => {
  const first = {
    IDEmisorFactura: '89890001K', NumSerieFactura: '12345678/G33', FechaExpedicionFactura: '01-01-2024', TipoFactura: 'F1',
    CuotaTotal: '12.35', ImporteTotal: '123.45', Huella: '', FechaHoraHusoGenRegistro: '2024-01-01T19:20:30+01:00',
  };
  assert.equal(hashInput(first), 'IDEmisorFactura=89890001K&NumSerieFactura=12345678/G33&FechaExpedicionFactura=01-01-2024&TipoFactura=F1&CuotaTotal=12.35&ImporteTotal=123.45&Huella=&FechaHoraHusoGenRegistro=2024-01-01T19:20:30+01:00');
  assert.equal(huella(first), '3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60');
  const second = { ...first, NumSerieFactura: '12345679/G34', Huella: huella(first), FechaHoraHusoGenRegistro: '2024-01-01T19:20:35+01:00' };
  assert.equal(huella(second), 'F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97');
  const cancellation = {
    IDEmisorFacturaAnulada: '89890001K', NumSerieFacturaAnulada: '12345679/G34', FechaExpedicionFacturaAnulada: '01-01-2024',
    Huella: huella(second), FechaHoraHusoGenRegistro: '2024-01-01T19:20:40+01:00',
  };
  assert.equal(huella(cancellation), '177547C0D57AC74748561D054A9CEC14B4C4EA23D1BEFD6F2E69E3A388F90C68');
  // Values are hashed trimmed, and the text is UTF-8.
  assert.equal(huella({ ...first, NumSerieFactura: ' 12345678/G33 ' }), huella(first));
  const accented = { ...first, NumSerieFactura: 'AÑO-1' };
  assert.equal(huella(accented), createHash('sha256').update(Buffer.from(hashInput(accented), 'utf8')).digest('hex').toUpperCase());
});

it('writes the QR address with the four parameters in order, URL-encoded, by environment and mode', () => {
  const invoice = { nif: '89890001K', numserie: '12345678&G33', fecha: '01-01-2024', importe: '241.40' };
  assert.equal(qrUrl(invoice, { entorno: 'pruebas', modo: 'verifactu' }),
    'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=89890001K&numserie=12345678%26G33&fecha=01-01-2024&importe=241.40');
  assert.equal(qrUrl({ ...invoice, numserie: 'A/7 B' }, { entorno: 'produccion', modo: 'noverifactu' }),
    'https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=89890001K&numserie=A%2F7%20B&fecha=01-01-2024&importe=241.40');
});

it('writes a wall-clock time with the offset its zone has then, on the days the clocks change too (table)', () => {
  const cases: Array<[string, string, string]> = [
    ['2027-01-15T00:00:00', 'Europe/Madrid', '2027-01-15T00:00:00+01:00'],
    ['2027-03-28T00:00:00', 'Europe/Madrid', '2027-03-28T00:00:00+01:00'],
    ['2027-03-28T23:59:59', 'Europe/Madrid', '2027-03-28T23:59:59+02:00'],
    ['2027-10-31T00:00:00', 'Europe/Madrid', '2027-10-31T00:00:00+02:00'],
    ['2027-10-31T23:59:59', 'Europe/Madrid', '2027-10-31T23:59:59+01:00'],
    ['2027-03-28T00:00:00', 'Atlantic/Canary', '2027-03-28T00:00:00+00:00'],
    ['2027-03-28T23:59:59', 'Atlantic/Canary', '2027-03-28T23:59:59+01:00'],
  ];
  for (const [local, zone, expected] of cases) assert.equal(zonedStamp(local, zone), expected, `${local} ${zone}`);
});

it('sends to the addresses the AEAT\'s WSDL gives, by environment, kind of certificate and service', () => {
  const wsdl = fs.readFileSync(new URL('../vendor/verifactu/SistemaFacturacion.wsdl', import.meta.url), 'utf8');
  const ports = [...wsdl.matchAll(/<wsdl:port name="Sistema(Verifactu|Requerimiento)(Sello)?(Pruebas)?"[\s\S]*?location="([^"]+)"/g)];
  assert.equal(ports.length, 8);
  const config = { endpoint: undefined, pollMs: 0, timeoutMs: 0 } as never;
  for (const [, service, sello, pruebas, location] of ports) {
    assert.equal(endpointOf(config, pruebas ? 'pruebas' : 'produccion', sello ? 'sello' : 'personal', service === 'Verifactu' ? 'VerifactuSOAP' : 'RequerimientoSOAP'), location);
  }
});

it('takes VERIFACTU_ENDPOINT as a bare origin or as a service\'s full URL, and refuses anything else (table)', () => {
  const wsdl = fs.readFileSync(new URL('../vendor/verifactu/SistemaFacturacion.wsdl', import.meta.url), 'utf8');
  const published = /location="([^"]+\/VerifactuSOAP)"/.exec(wsdl)![1]!;
  const path = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/';
  // [VERIFACTU_ENDPOINT, where VerifactuSOAP goes, where RequerimientoSOAP goes]
  const accepted: Array<[string, string, string]> = [
    ['https://127.0.0.1:8443', `https://127.0.0.1:8443${path}VerifactuSOAP`, `https://127.0.0.1:8443${path}RequerimientoSOAP`],
    ['https://stand-in.test/', `https://stand-in.test${path}VerifactuSOAP`, `https://stand-in.test${path}RequerimientoSOAP`],
    [published, published, published.replace(/VerifactuSOAP$/, 'RequerimientoSOAP')],
    ['https://prewww1.aeat.es:443/wlpl/TIKE-CONT/ws/SistemaFacturacion/RequerimientoSOAP', `https://prewww1.aeat.es${path}VerifactuSOAP`, `https://prewww1.aeat.es${path}RequerimientoSOAP`],
    ['https://proxy.internal:9443/aeat/VerifactuSOAP/', 'https://proxy.internal:9443/aeat/VerifactuSOAP', 'https://proxy.internal:9443/aeat/RequerimientoSOAP'],
  ];
  for (const [endpoint, verifactu, requerimiento] of accepted) {
    const config = loadConfig({ VERIFACTU_ENDPOINT: endpoint }).verifactu;
    assert.equal(endpointOf(config, 'produccion', 'personal', 'VerifactuSOAP'), verifactu, endpoint);
    assert.equal(endpointOf(config, 'pruebas', 'sello', 'RequerimientoSOAP'), requerimiento, endpoint);
  }
  const refused = ['http://127.0.0.1:8443', 'https://host/wlpl/TIKE-CONT/ws/SistemaFacturacion', 'https://host/other', 'https://host/x/VerifactuSOAP?wsdl',
    'https://host#frag', 'https://user:secret@host', 'host:443', 'prewww1.aeat.es', 'ftp://host/VerifactuSOAP'];
  for (const endpoint of refused) {
    assert.throws(() => loadConfig({ VERIFACTU_ENDPOINT: endpoint }), (error: unknown) => error instanceof ConfigError && /VERIFACTU_ENDPOINT must be https:\/\/host\[:port\] or a service's full URL/.test(error.message), endpoint);
  }
});

it('accepts Spanish tax ids by their check character only (table)', () => {
  const cases: Array<[string, string | undefined]> = [
    ['12345678Z', '12345678Z'], ['12345678z', '12345678Z'], ['12.345.678-Z', '12345678Z'], ['12345678A', undefined],
    ['X1234567L', 'X1234567L'], ['Y1234567X', 'Y1234567X'], ['Z1234567R', 'Z1234567R'], ['X1234567A', undefined],
    ['89890001K', '89890001K'], ['00000014Z', '00000014Z'],
    ['B12345674', 'B12345674'], ['B12345678', undefined], ['ESB12345674', 'B12345674'],
    // Q2826000H: the AEAT itself (a letter control); P-, Q-, S- and W-entities take letters only, A, B, E, H digits only.
    ['Q2826000H', 'Q2826000H'], ['Q28260008', undefined], ['A58818501', 'A58818501'], ['A5881850A', undefined],
    ['K1234567L', 'K1234567L'], ['', undefined], ['B1234567', undefined], ['IT12345678901', undefined],
  ];
  for (const [input, expected] of cases) assert.equal(spanishTaxId(input), expected, input);
});

it('dates records on the issuing territory\'s clock: Madrid and the Canaries, winter and summer', () => {
  const winter = Date.parse('2027-01-15T09:00:00.750Z');
  const summer = Date.parse('2027-07-15T09:00:00Z');
  assert.equal(registrationTime(winter, 'Europe/Madrid'), '2027-01-15T10:00:00+01:00');
  assert.equal(registrationTime(winter, 'Atlantic/Canary'), '2027-01-15T09:00:00+00:00');
  assert.equal(registrationTime(summer, 'Europe/Madrid'), '2027-07-15T11:00:00+02:00');
  assert.equal(registrationTime(summer, 'Atlantic/Canary'), '2027-07-15T10:00:00+01:00');
  // The night summer time begins (28 March 2027, 01:00 UTC): one second apart, an hour apart on the wall.
  assert.equal(registrationTime(Date.parse('2027-03-28T00:59:59Z'), 'Europe/Madrid'), '2027-03-28T01:59:59+01:00');
  assert.equal(registrationTime(Date.parse('2027-03-28T01:00:00Z'), 'Europe/Madrid'), '2027-03-28T03:00:00+02:00');
  assert.equal(territoryOf({ codpostal: '35001' }), 'Atlantic/Canary');
  assert.equal(territoryOf({ codpostal: '38200' }), 'Atlantic/Canary');
  assert.equal(territoryOf({ provincia: 'Santa Cruz de Tenerife' }), 'Atlantic/Canary');
  assert.equal(territoryOf({ provincia: 'LAS PALMAS' }), 'Atlantic/Canary');
  assert.equal(territoryOf({ codpostal: '28001', provincia: 'Madrid' }), 'Europe/Madrid');
  assert.equal(territoryOf({ provincia: 'Illes Balears' }), 'Europe/Madrid');
});

it('qualifies each line by tax, regime, exemption and surcharge (table)', () => {
  const vat = (iva: number, extra: Partial<LineTax> = {}): LineTax => ({ codimpuesto: `IVA${iva}`, iva, recargo: 0, excepcioniva: null, taxKind: 'ES_01', ...extra });
  const cases: Array<[LineTax, boolean, Classification]> = [
    [vat(21), false, { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S1' }],
    [vat(21, { recargo: 5.2 }), false, { Impuesto: '01', ClaveRegimen: '18', CalificacionOperacion: 'S1' }],
    [vat(0, { excepcioniva: 'ES_21' }), false, { Impuesto: '01', ClaveRegimen: '02', OperacionExenta: 'E2' }],
    [vat(0, { excepcioniva: 'ES_25' }), false, { Impuesto: '01', ClaveRegimen: '01', OperacionExenta: 'E5' }],
    [vat(0, { excepcioniva: 'ES_20' }), false, { Impuesto: '01', ClaveRegimen: '01', OperacionExenta: 'E1' }],
    [vat(0), false, { Impuesto: '01', ClaveRegimen: '01', OperacionExenta: 'E6' }],
    [vat(0, { excepcioniva: 'ES_84' }), false, { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S2' }],
    [vat(0, { excepcioniva: 'ES_68_70' }), false, { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'N2' }],
    [vat(0, { excepcioniva: 'ES_7' }), false, { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'N1' }],
    // Assimilated to exports (art. 22): regime 02 too (validation 1199).
    [vat(0, { excepcioniva: 'ES_22' }), false, { Impuesto: '01', ClaveRegimen: '02', OperacionExenta: 'E3' }],
    // A cause on a taxed line does not exempt it, nor make it reverse charge or not subject: its tax stays on the record.
    [vat(21, { excepcioniva: 'ES_20' }), false, { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S1' }],
    [vat(21, { excepcioniva: 'ES_84' }), false, { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S1' }],
    [vat(10, { excepcioniva: 'ES_68_70' }), false, { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S1' }],
    // Nor does a surcharge on a 0 % line vanish as an exemption.
    [vat(0, { recargo: 0.5 }), false, { Impuesto: '01', ClaveRegimen: '18', CalificacionOperacion: 'S1' }],
    [{ codimpuesto: 'IGIC7', iva: 7, recargo: 0, excepcioniva: null, taxKind: 'ES_03' }, false, { Impuesto: '03', ClaveRegimen: '01', CalificacionOperacion: 'S1' }],
    [{ codimpuesto: 'IGIC0', iva: 0, recargo: 0, excepcioniva: null, taxKind: 'ES_03' }, false, { Impuesto: '03', ClaveRegimen: '01', CalificacionOperacion: 'S1' }],
    [{ codimpuesto: 'IPSI4', iva: 4, recargo: 0, excepcioniva: null, taxKind: 'ES_04' }, false, { Impuesto: '02', ClaveRegimen: '01', CalificacionOperacion: 'S1' }],
    [vat(21), true, { Impuesto: '01', ClaveRegimen: '05', CalificacionOperacion: 'S1' }],
  ];
  for (const [line, travelAgency, expected] of cases) assert.deepEqual(classify(line, { travelAgency }), expected, JSON.stringify(line));
});

it('states rate and quota only where the AEAT wants them, and always adds up to the document', () => {
  const s1 = classify({ codimpuesto: 'IVA21', iva: 21, recargo: 5.2, excepcioniva: null, taxKind: 'ES_01' }, { travelAgency: false });
  const e1 = classify({ codimpuesto: 'IVA0', iva: 0, recargo: 0, excepcioniva: 'ES_20', taxKind: 'ES_01' }, { travelAgency: false });
  const e2 = classify({ codimpuesto: 'IVA0', iva: 0, recargo: 0, excepcioniva: 'ES_21', taxKind: 'ES_01' }, { travelAgency: false });
  const s2 = classify({ codimpuesto: 'IVA0', iva: 0, recargo: 0, excepcioniva: 'ES_84', taxKind: 'ES_01' }, { travelAgency: false });
  const same = (amount: ReturnType<typeof dec>) => amount;
  // Three 0 % parts summed apart to 33.34 + 33.34 + 33.34 = 100.02: the document's group says 100.01.
  const details = desglose([
    { classification: s1, groups: [{ iva: 21, recargo: 5.2, neto: 100, totaliva: 21, totalrecargo: 5.2 }] },
    { classification: e1, groups: [{ iva: 0, recargo: 0, neto: 33.34, totaliva: 0, totalrecargo: 0 }] },
    { classification: e2, groups: [{ iva: 0, recargo: 0, neto: 33.34, totaliva: 0, totalrecargo: 0 }] },
    { classification: s2, groups: [{ iva: 0, recargo: 0, neto: 33.34, totaliva: 0, totalrecargo: 0 }] },
  ], [{ iva: 21, recargo: 5.2, neto: 100, totaliva: 21, totalrecargo: 5.2 }, { iva: 0, recargo: 0, neto: 100.01, totaliva: 0, totalrecargo: 0 }], same);
  assert.deepEqual(details, [
    { Impuesto: '01', ClaveRegimen: '18', CalificacionOperacion: 'S1', TipoImpositivo: '21.00', BaseImponibleOimporteNoSujeto: '100.00', CuotaRepercutida: '21.00', TipoRecargoEquivalencia: '5.20', CuotaRecargoEquivalencia: '5.20' },
    // The first of the largest parts takes the cent.
    { Impuesto: '01', ClaveRegimen: '01', OperacionExenta: 'E1', BaseImponibleOimporteNoSujeto: '33.33' },
    { Impuesto: '01', ClaveRegimen: '02', OperacionExenta: 'E2', BaseImponibleOimporteNoSujeto: '33.34' },
    { Impuesto: '01', ClaveRegimen: '01', CalificacionOperacion: 'S2', TipoImpositivo: '0.00', BaseImponibleOimporteNoSujeto: '33.34', CuotaRepercutida: '0.00' },
  ]);
  const bases = details.slice(1).reduce((acc, d) => acc.plus(dec(d.BaseImponibleOimporteNoSujeto as string)), dec(0));
  assert.equal(bases.toFixed(2), '100.01');
  assert.deepEqual(recordTotals(details), { cuotaTotal: '26.20', importeTotal: '226.21' });
  // Another currency: every amount converted and rounded, the totals their sums.
  const inDollars = desglose([{ classification: s1, groups: [{ iva: 21, recargo: 0, neto: 113, totaliva: 23.73, totalrecargo: 0 }] }],
    [{ iva: 21, recargo: 0, neto: 113, totaliva: 23.73, totalrecargo: 0 }], (amount) => amount.div(1.13));
  assert.deepEqual([inDollars[0]!.BaseImponibleOimporteNoSujeto, inDollars[0]!.CuotaRepercutida], ['100.00', '21.00']);
});

it('writes amounts with two decimals and a minus only when negative', () => {
  assert.deepEqual([dec(12.5), dec(-3.456), dec(-0.001), dec(0), dec(100000000)].map(xmlAmount), ['12.50', '-3.46', '0.00', '0.00', '100000000.00']);
});

it('keeps a record\'s text well-formed XML, on one line, trimmed to its length', () => {
  assert.equal(xmlText('  Línea\u0001 uno\r\n\tdos\u000b  ', 500), 'Línea uno dos');
  assert.equal(xmlText('Añadido € 😀 fin', 12), 'Añadido € 😀');
  assert.equal(xmlText(null, 10), '');
});
