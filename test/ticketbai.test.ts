import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, it } from 'node:test';
import { enabledEngines } from './helpers/engines.ts';
import { eventually } from './helpers/eventually.ts';
import { exported, pdfText, qrCodesOf } from './helpers/pdf-reading.ts';
import { makeCertificates } from './helpers/aeat-stand-in.ts';
import { observe } from './helpers/observe-statements.ts';
import { forEachEngine, withOtherInstance, type TestApp } from './helpers/test-app.ts';
import { crc8, startTicketbaiStandIn, tbaiIdentifierOf, ticketbaiSchemaErrors, xmlsecVerifies, type Territory, type TicketbaiStandIn } from './helpers/ticketbai-stand-in.ts';

/**
 * TicketBAI (issue 57, docs/ticketbai.md) on every engine, one company per treasury: the switch
 * and its rules (never with VERI*FACTU), a signed file for every invoice and credit note in its
 * transaction, valid against the 1.2.2 schema, its signature verified by xmlsec1 under the
 * territory's policy, its identifier and QR recomputed apart from the service's code, each chained
 * to the one before; sending to stand-ins of the three services over mutual TLS (Araba and Gipuzkoa
 * at issuance, Bizkaia through LROE), their answers (taken, refused with codes, down) stored;
 * cancellations, Zuzendu corrections, resending; one unbroken chain with two instances issuing.
 */

const certificates = makeCertificates();
after(() => fs.rmSync(certificates.dir, { recursive: true, force: true }));

let now = Date.parse('2027-03-10T09:30:00Z');
const clock = { now: () => now };
const TERRITORIES: Territory[] = ['araba', 'bizkaia', 'gipuzkoa'];
const COMPANIES: Record<Territory, { nif: string; almacen: string }> = {
  araba: { nif: 'B12345674', almacen: 'ALG' },
  bizkaia: { nif: 'B76365782', almacen: 'BIZ' },
  gipuzkoa: { nif: 'B65321580', almacen: 'GIP' },
};
const SOFTWARE = { licence: 'TBAIPRUEBA0000000001', developerNif: 'A99800005', name: 'INVOICING API', version: '1.0' };

for (const engine of enabledEngines()) {
  const standIns = Object.fromEntries(await Promise.all(TERRITORIES.map(async (territory) => [territory, await startTicketbaiStandIn(certificates, territory)] as const))) as Record<Territory, TicketbaiStandIn>;
  after(() => Promise.all(Object.values(standIns).map((standIn) => standIn.close())));
  const config = {
    ticketbai: {
      endpoints: Object.fromEntries(TERRITORIES.map((territory) => [territory, standIns[territory].url])),
      caFile: certificates.caFile, software: SOFTWARE, pollMs: 3_600_000, timeoutMs: 5000,
    },
  };
  forEachEngine('TicketBAI', (t) => suite(t, standIns, engine), { engines: [engine], clock, config });
}

function suite(t: () => TestApp, standIns: Record<Territory, TicketbaiStandIn>, engine: string): void {
  const call = (method: string, url: string, body?: unknown) => t().call(method, url, body);
  const ids: Partial<Record<Territory, number>> = {};
  const fields = (answer: { status: number; body: any }, status: number, expected: Record<string, string>) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    for (const [name, reason] of Object.entries(expected)) assert.equal(answer.body.fields?.[name], reason, JSON.stringify(answer.body));
  };
  const invoice = async (territory: Territory, body: Record<string, unknown>) => {
    const answer = await call('POST', '/api/3/crearFacturaCliente', { codalmacen: COMPANIES[territory].almacen, ...body });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.doc as Record<string, any>;
  };
  const filesOf = async (territory: Territory) => {
    const answer = await call('GET', `/api/3/registroticketbai?filter[idempresa]=${ids[territory]}&sort[id]=ASC&limit=1000`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body as Array<Record<string, any>>;
  };
  const xmlOf = async (id: number) => {
    const answer = await t().request({ method: 'GET', url: `/api/3/registroticketbai/${id}/xml` });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.match(String(answer.headers['content-type']), /^application\/xml/);
    return answer.body;
  };
  const switchOn = (territory: Territory, extra: Record<string, unknown> = {}) => call('POST', '/api/3/ticketbaiempresa', {
    idempresa: ids[territory], territorio: territory, activo: true, certificado: certificates.clientP12.toString('base64'), certificadoclave: certificates.password, ...extra,
  });
  /** The file checked as a treasury would: schema, signature and policy, identifier, QR, chain. */
  const assertSound = async (file: Record<string, any>, previous: Record<string, any> | undefined) => {
    const xml = await xmlOf(file.id);
    assert.equal(ticketbaiSchemaErrors(xml, file.tipo), undefined);
    if (file.tipo === 'alta' || file.tipo === 'anulacion') {
      const verdict = xmlsecVerifies(xml, certificates.caFile);
      assert.ok(verdict.ok, verdict.output);
    }
    if (file.tipo !== 'alta') return xml;
    assert.equal(file.identificador, tbaiIdentifierOf(xml));
    assert.equal(file.identificador.length, 39);
    const qr = new URL(file.qr);
    assert.deepEqual([qr.searchParams.get('id'), qr.searchParams.get('s'), qr.searchParams.get('nf'), qr.searchParams.get('i')], [file.identificador, file.serie, file.numero, file.importe]);
    assert.equal(qr.searchParams.get('cr'), crc8(file.qr.slice(0, file.qr.indexOf('&cr='))));
    assert.match(xml, new RegExp(`<ImporteTotalFactura>${file.importe.replace('.', '\\.')}</ImporteTotalFactura>`));
    if (previous) {
      assert.equal(file.idanterior, previous.id);
      assert.equal(file.firmaanterior, previous.firma.slice(0, 100));
      assert.match(xml, new RegExp(`<NumFacturaAnterior>${previous.numero}</NumFacturaAnterior><FechaExpedicionFacturaAnterior>${previous.fecha}</FechaExpedicionFacturaAnterior><SignatureValueFirmaFacturaAnterior>${previous.firma.slice(0, 100).replace(/[+/]/g, '\\$&')}</SignatureValueFirmaFacturaAnterior>`));
    } else {
      assert.equal(file.idanterior, null);
      assert.doesNotMatch(xml, /EncadenamientoFacturaAnterior/);
    }
    return xml;
  };
  const answered = (territory: Territory, count: number) => eventually(async () => {
    const files = await filesOf(territory);
    assert.equal(files.filter((file) => file.estado === 'aceptado' || file.estado === 'rechazado').length, count, JSON.stringify(files.map((file) => [file.id, file.estado, file.codigo])));
  });
  const clean = () => {
    for (const standIn of Object.values(standIns)) {
      assert.deepEqual([standIn.invalid, standIn.badSignatures, standIn.chainErrors], [[], [], []], `${standIn.territory} found nothing wrong`);
    }
  };

  before(async () => {
    now = Date.parse('2027-03-10T09:30:00Z');
    assert.equal((await call('PATCH', '/api/3/empresa/1', { cifnif: COMPANIES.araba.nif, nombre: 'Ejemplo Soluciones SL' })).status, 200);
    ids.araba = 1;
    for (const territory of ['bizkaia', 'gipuzkoa'] as const) {
      const company = await call('POST', '/api/3/empresa', { nombre: `Ejemplo ${territory} SL`, cifnif: COMPANIES[territory].nif });
      assert.equal(company.status, 201, JSON.stringify(company.body));
      ids[territory] = company.body.idempresa;
      assert.equal((await call('POST', '/api/3/almacen', { codalmacen: COMPANIES[territory].almacen, nombre: territory, idempresa: ids[territory] })).status, 201);
    }
    for (const customer of [
      { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' },
      { codcliente: 'TIENDA', nombre: 'Droguería Luna', razonsocial: 'Droguería Luna SL', cifnif: 'X1234567L', regimeniva: 'Recargo' },
      { codcliente: 'PARIS', nombre: 'Atelier Paris', cifnif: 'FR40303265045' },
      { codcliente: 'SINNIF', nombre: 'Cliente de contado' },
    ]) {
      const created = await call('POST', '/api/3/cliente', customer);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
  });

  it('switches a company on with a valid NIF, a certificate and registered software, and never beside VERI*FACTU', async () => {
    assert.equal((await call('PATCH', '/api/3/empresa/1', { cifnif: 'B1234567' })).status, 200);
    fields(await switchOn('araba'), 422, { cifnif: 'invalid-spanish-tax-id' });
    assert.equal((await call('PATCH', '/api/3/empresa/1', { cifnif: COMPANIES.araba.nif })).status, 200);
    fields(await switchOn('araba', { certificado: null, certificadoclave: null }), 422, { certificado: 'required' });
    fields(await switchOn('araba', { certificadoclave: 'wrong' }), 422, { certificado: 'invalid-certificate' });
    fields(await switchOn('araba', { territorio: 'navarra' }), 422, { territorio: 'invalid-value' });
    fields(await switchOn('bizkaia', { modelolroe: '140' }), 422, { epigrafe: 'required' });
    // VERI*FACTU on: TicketBAI refused, naming it; and the other way round.
    assert.equal((await call('POST', '/api/3/verifactuempresa', { idempresa: ids.gipuzkoa, modo: 'noverifactu' })).status, 201);
    fields(await switchOn('gipuzkoa'), 422, { activo: 'verifactu-active' });
    assert.equal((await call('PATCH', `/api/3/verifactuempresa/${ids.gipuzkoa}`, { modo: 'off' })).status, 200);
    for (const territory of TERRITORIES) {
      const on = await switchOn(territory);
      assert.equal(on.status, 201, JSON.stringify(on.body));
      assert.deepEqual([on.body.activo, on.body.entorno, on.body.fechaactivacion, on.body.certificado, on.body.certificadoclave], [true, 'pruebas', '2027-03-10', undefined, undefined]);
      assert.match(on.body.certificadotitular, /EJEMPLO SOLUCIONES SL/);
    }
    fields(await call('PATCH', `/api/3/verifactuempresa/${ids.gipuzkoa}`, { modo: 'verifactu' }), 422, { modo: 'ticketbai-active' });
    // The inspection data: what every file names as its software, as configured.
    const software = await call('GET', '/api/3/ticketbaiSoftware');
    assert.equal(software.status, 200, JSON.stringify(software.body));
    assert.deepEqual([software.body.desarrollador.nif, software.body.programa.nombre], [SOFTWARE.developerNif, SOFTWARE.name]);
    assert.deepEqual(software.body.ficheros.find((row: any) => row.territorio === 'araba' && row.entorno === 'produccion'), {
      territorio: 'araba', entorno: 'produccion', licencia: SOFTWARE.licence, desarrolladornif: SOFTWARE.developerNif, nombre: SOFTWARE.name, version: SOFTWARE.version,
    });
    fields(await call('POST', '/api/3/verifactuempresa', { idempresa: ids.araba, modo: 'verifactu' }), 422, { modo: 'ticketbai-active' });
  });

  it('signs, chains and sends every invoice and credit note, in each territory, to its treasury over mutual TLS', async () => {
    for (const territory of TERRITORIES) {
      const first = await invoice(territory, { codcliente: 'ANA', direccion: 'Kale Nagusia 1', codpostal: '20001', lineas: [{ descripcion: 'Consultoría', cantidad: 3, pvpunitario: 80 }, { descripcion: 'Libro', pvpunitario: 20, codimpuesto: 'IVA4' }] });
      const second = await invoice(territory, { codcliente: 'TIENDA', lineas: [{ descripcion: 'Jabón', cantidad: 10, pvpunitario: 3.35, dtopor: 10 }] });
      const refund = await call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: first.idfactura, fecha: '2027-03-10' });
      assert.equal(refund.status, 200, JSON.stringify(refund.body));
      // The invoice's answer names its file.
      const shown = await call('GET', `/api/3/facturacliente/${second.idfactura}`);
      assert.match(shown.body.ticketbai.identificador, /^TBAI-B\d{8}-100327-.{13}-\d{3}$/);
      const files = await filesOf(territory);
      assert.deepEqual(files.map((file) => [file.tipo, file.idfactura]), [['alta', first.idfactura], ['alta', second.idfactura], ['alta', refund.body.doc.idfactura]]);
      assert.equal(shown.body.ticketbai.idregistro, files[1]!.id);
      let previous: Record<string, any> | undefined;
      for (const file of files) {
        await assertSound(file, previous);
        previous = file;
      }
      const refundXml = await xmlOf(files[2]!.id);
      assert.match(refundXml, /<FacturaRectificativa><Codigo>R1<\/Codigo><Tipo>I<\/Tipo><\/FacturaRectificativa><FacturasRectificadasSustituidas><IDFacturaRectificadaSustituida><SerieFactura>A\d{4}<\/SerieFactura><NumFactura>\d+<\/NumFactura><FechaExpedicionFactura>10-03-2027<\/FechaExpedicionFactura>/);
      // The surcharge customer: the rate and its equivalence surcharge, summed as the invoice was.
      const surcharge = await xmlOf(files[1]!.id);
      assert.match(surcharge, /<BaseImponible>30\.15<\/BaseImponible><TipoImpositivo>21\.00<\/TipoImpositivo><CuotaImpuesto>6\.33<\/CuotaImpuesto><TipoRecargoEquivalencia>5\.20<\/TipoRecargoEquivalencia><CuotaRecargoEquivalencia>1\.57<\/CuotaRecargoEquivalencia>/);
      assert.equal(files[1]!.importe, (Number(second.neto) + Number(second.totaliva) + Number(second.totalrecargo)).toFixed(2));
    }
    // Araba and Gipuzkoa at issuance, one file a request; Bizkaia when its job runs, in one LROE submission.
    for (const territory of ['araba', 'gipuzkoa'] as const) await answered(territory, 3);
    await t().app.runJob('ticketbai-send');
    await answered('bizkaia', 3);
    for (const territory of TERRITORIES) {
      const files = await filesOf(territory);
      assert.deepEqual(files.map((file) => file.estado), ['aceptado', 'aceptado', 'aceptado'], JSON.stringify(files));
      const received = standIns[territory].received.filter((got) => got.nif === COMPANIES[territory].nif);
      assert.deepEqual(received.map((got) => [got.operation, got.numero]), files.map((file) => ['alta', file.numero]));
      assert.ok(received.every((got) => got.client === 'EJEMPLO SOLUCIONES SL'), 'the company\'s certificate presented');
      assert.deepEqual(received.map((got) => got.signatureValue), files.map((file) => file.firma));
    }
    assert.deepEqual(standIns.bizkaia.received.filter((got) => got.nif === COMPANIES.bizkaia.nif).map((got) => [got.lroe?.mode, got.lroe?.ejer]), [['240', '2027'], ['240', '2027'], ['240', '2027']]);
    assert.ok(standIns.gipuzkoa.received.some((got) => got.xml.includes('<CodigoPostal>20001</CodigoPostal><Direccion>Kale Nagusia 1</Direccion>')), 'Gipuzkoa gets the recipient\'s address');
    clean();
  });

  it('maps simplified invoices, exemptions, IRPF and customers abroad as the schema says', async () => {
    const before = (await filesOf('gipuzkoa')).length;
    const ticket = await invoice('gipuzkoa', { codcliente: 'SINNIF', codserie: 'S', lineas: [{ descripcion: 'Ticket', pvpunitario: 10 }] });
    const withIrpf = await invoice('gipuzkoa', { codcliente: 'ANA', irpf: 15, lineas: [{ descripcion: 'Asesoría', pvpunitario: 100 }, { descripcion: 'Curso', pvpunitario: 50, codimpuesto: 'IVA0', excepcioniva: 'ES_20' }] });
    assert.equal((await call('POST', '/api/3/producto', { referencia: 'CAJA', descripcion: 'Caja de herramientas' })).status, 201);
    await invoice('gipuzkoa', { codcliente: 'PARIS', codpais: 'FRA', lineas: [
      { referencia: 'CAJA', pvpunitario: 200, codimpuesto: 'IVA0', excepcioniva: 'ES_21' },
      { descripcion: 'Consultoría', pvpunitario: 300, codimpuesto: 'IVA0', excepcioniva: 'ES_68_70' },
    ] });
    const files = (await filesOf('gipuzkoa')).slice(before);
    assert.equal(files.length, 3);
    const [simplified, withholding, abroad] = await Promise.all(files.map((file) => xmlOf(file.id)));
    for (const file of files) assert.equal(ticketbaiSchemaErrors(await xmlOf(file.id), 'alta'), undefined);
    assert.match(simplified!, /<FacturaSimplificada>S<\/FacturaSimplificada>/);
    assert.doesNotMatch(simplified!, /<Destinatarios>/);
    assert.ok(Number(withIrpf.totalirpf) > 0);
    assert.match(withholding!, new RegExp(`<RetencionSoportada>${Number(withIrpf.totalirpf).toFixed(2)}</RetencionSoportada>`));
    assert.match(withholding!, /<Exenta><DetalleExenta><CausaExencion>E1<\/CausaExencion><BaseImponible>50\.00<\/BaseImponible><\/DetalleExenta><\/Exenta><NoExenta>/);
    assert.match(abroad!, /<IDOtro><CodigoPais>FR<\/CodigoPais><IDType>02<\/IDType><ID>FR40303265045<\/ID><\/IDOtro>/);
    // Abroad, by kind of operation: the consulting (free text) a service not subject here, the goods an exempt export.
    assert.match(abroad!, /<DesgloseTipoOperacion><PrestacionServicios><NoSujeta><DetalleNoSujeta><Causa>RL<\/Causa><Importe>300\.00<\/Importe><\/DetalleNoSujeta><\/NoSujeta><\/PrestacionServicios><Entrega><Sujeta><Exenta><DetalleExenta><CausaExencion>E2<\/CausaExencion><BaseImponible>200\.00<\/BaseImponible><\/DetalleExenta><\/Exenta><\/Sujeta><\/Entrega><\/DesgloseTipoOperacion>/);
    assert.match(abroad!, /<ImporteTotalFactura>500\.00<\/ImporteTotalFactura>/);
    assert.match(abroad!, /<ClaveRegimenIvaOpTrascendencia>02<\/ClaveRegimenIvaOpTrascendencia>/);
    // A simplified invoice's credit note is an R5.
    const refund = await call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: ticket.idfactura, fecha: '2027-03-10' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    const r5 = (await filesOf('gipuzkoa')).find((file) => file.idfactura === refund.body.doc.idfactura)!;
    assert.match(await assertSound(r5, files[2]), /<FacturaRectificativa><Codigo>R5<\/Codigo><Tipo>I<\/Tipo><\/FacturaRectificativa>/);
    await answered('gipuzkoa', before + 4);
    clean();
  });

  it('makes the file of an invoice generated from a delivery note, with the keys of what it sells (rent of business premises)', async () => {
    assert.equal((await call('POST', '/api/3/producto', { referencia: 'LOCAL', descripcion: 'Alquiler de local', tipo: 'Arrendamiento local negocio' })).status, 201);
    const note = await call('POST', '/api/3/crearAlbaranCliente', { codalmacen: COMPANIES.gipuzkoa.almacen, codcliente: 'ANA', lineas: [{ referencia: 'LOCAL', cantidad: 1, pvpunitario: 800 }] });
    assert.equal(note.status, 200, JSON.stringify(note.body));
    assert.equal((await call('PATCH', `/api/3/albarancliente/${note.body.doc.idalbaran}`, { idestado: 8 })).status, 200);
    const [link] = (await call('GET', `/api/3/doctransformation?filter[model1]=AlbaranCliente&filter[iddoc1]=${note.body.doc.idalbaran}`)).body;
    const file = (await filesOf('gipuzkoa')).find((row) => row.idfactura === link.iddoc2)!;
    const xml = await assertSound(file, (await filesOf('gipuzkoa')).find((row) => row.id === file.idanterior));
    assert.match(xml, /<IDClave><ClaveRegimenIvaOpTrascendencia>12<\/ClaveRegimenIvaOpTrascendencia><\/IDClave><IDClave><ClaveRegimenIvaOpTrascendencia>01<\/ClaveRegimenIvaOpTrascendencia><\/IDClave>/);
    await eventually(async () => assert.equal((await filesOf('gipuzkoa')).find((row) => row.id === file.id)!.estado, 'aceptado'));
    clean();
  });

  it('keeps a natural person\'s book in Bizkaia as model 140, with its activity heading', async () => {
    const person = await call('POST', '/api/3/empresa', { nombre: 'Ane Arriola Lejardi', cifnif: '11111111H' });
    assert.equal(person.status, 201, JSON.stringify(person.body));
    assert.equal((await call('POST', '/api/3/almacen', { codalmacen: 'BI2', nombre: 'Ane', idempresa: person.body.idempresa })).status, 201);
    const on = await call('POST', '/api/3/ticketbaiempresa', {
      idempresa: person.body.idempresa, territorio: 'bizkaia', modelolroe: '140', epigrafe: '8431', activo: true, certificado: certificates.clientP12.toString('base64'), certificadoclave: certificates.password,
    });
    assert.equal(on.status, 201, JSON.stringify(on.body));
    const doc = await call('POST', '/api/3/crearFacturaCliente', { codalmacen: 'BI2', codcliente: 'ANA', lineas: [{ descripcion: 'Fisioterapia', pvpunitario: 45 }] });
    assert.equal(doc.status, 200, JSON.stringify(doc.body));
    await t().app.runJob('ticketbai-send');
    const got = standIns.bizkaia.received.filter((received) => received.nif === '11111111H');
    assert.deepEqual(got.map((received) => [received.operation, received.lroe?.mode, received.outcome]), [['alta', '140', 'Correcto']]);
    const file = (await call('GET', `/api/3/registroticketbai?filter[idfactura]=${doc.body.doc.idfactura}`)).body[0];
    assert.equal(file.estado, 'aceptado');
    // The company's next invoices keep their rounds from the start: no batch with its COMMIT sent
    // only to fail on the switch (issue-invoices.ts), and each still gets its file.
    for (let i = 0; i < 2; i++) {
      const seen = await observe(t(), () => call('POST', '/api/3/crearFacturaCliente', { codalmacen: 'BI2', codcliente: 'ANA', lineas: [{ descripcion: `Fisioterapia ${i}`, pvpunitario: 45 }] }));
      assert.equal(seen.value.status, 200, JSON.stringify(seen.value.body));
      assert.ok(!seen.statements.some((text) => / end as guard from \(/.test(text)), 'no guarded batch');
      assert.equal((await call('GET', `/api/3/registroticketbai?filter[idfactura]=${seen.value.body.doc.idfactura}`)).body.length, 1);
    }
    clean();
  });

  it('stores what the treasury answers: down (retried with back-off), refused with its codes, then corrected through Zuzendu', async () => {
    const gipuzkoa = standIns.gipuzkoa;
    gipuzkoa.failures.push('down');
    const down = await invoice('gipuzkoa', { codcliente: 'ANA', lineas: [{ descripcion: 'Mantenimiento', pvpunitario: 60 }] });
    const queue = async () => (await t().app.ctx.database.kysely.selectFrom('ticketbai_colas').selectAll().where('idempresa', '=', ids.gipuzkoa!).executeTakeFirstOrThrow());
    await eventually(async () => assert.equal(Number((await queue()).fallos), 1));
    let file = (await filesOf('gipuzkoa')).find((row) => row.idfactura === down.idfactura)!;
    assert.equal(file.estado, 'pendiente', 'the service was down (006): nothing registered, sent again later');
    // Not before its back-off is over.
    await t().app.runJob('ticketbai-send');
    assert.equal((await filesOf('gipuzkoa')).find((row) => row.id === file.id)!.estado, 'pendiente');
    now += 61_000;
    await t().app.runJob('ticketbai-send');
    file = (await filesOf('gipuzkoa')).find((row) => row.id === file.id)!;
    assert.equal(file.estado, 'aceptado');
    assert.equal(file.intentos, 2);
    assert.equal(Number((await queue()).fallos), 0);

    gipuzkoa.rejectNext.push({ codigo: '011', descripcion: 'Error: datos obligatorios' });
    const refused = await invoice('gipuzkoa', { codcliente: 'ANA', lineas: [{ descripcion: 'Reparación', pvpunitario: 90 }] });
    await eventually(async () => assert.equal((await filesOf('gipuzkoa')).find((row) => row.idfactura === refused.idfactura)!.estado, 'rechazado'));
    const rejected = (await filesOf('gipuzkoa')).find((row) => row.idfactura === refused.idfactura)!;
    assert.equal(rejected.codigo, '011');
    assert.match(rejected.descripcion, /datos obligatorios/);
    const events = await call('GET', '/api/3/events?type=ticketbai.state&latest=50');
    assert.ok(events.body.events.some((event: any) => event.type === 'ticketbai.state' && event.payload.idregistro === rejected.id && event.payload.estado === 'rechazado'), JSON.stringify(events.body).slice(0, 500));
    // A refused file is corrected, not resent, in Gipuzkoa.
    assert.equal((await call('POST', `/api/3/reenviarTicketBAI/${rejected.id}`)).body.reason, 'use-zuzendu');
    const correction = await call('POST', `/api/3/zuzenduTicketBAI/${rejected.id}`);
    assert.equal(correction.status, 201, JSON.stringify(correction.body));
    assert.deepEqual([correction.body.tipo, correction.body.accion, correction.body.idcorregido], ['zuzendu-alta', 'SUBSANAR', rejected.id]);
    const zuzendu = await xmlOf(correction.body.id);
    assert.equal(ticketbaiSchemaErrors(zuzendu, 'zuzendu-alta'), undefined);
    assert.match(zuzendu, new RegExp(`<SignatureValueFirmaFactura>${rejected.firma.slice(0, 100).replace(/[+/]/g, '\\$&')}</SignatureValueFirmaFactura>`));
    assert.ok(zuzendu.includes((await xmlOf(rejected.id)).match(/<HuellaTBAI>.*<\/HuellaTBAI>/)![0]), 'the same fingerprint as the original');
    await eventually(async () => assert.equal((await filesOf('gipuzkoa')).find((row) => row.id === rejected.id)!.estado, 'aceptado'));
    assert.equal(gipuzkoa.received.at(-1)!.operation, 'zuzendu-alta');
    assert.equal(gipuzkoa.received.at(-1)!.accion, 'SUBSANAR');
    // Bizkaia has no Zuzendu: a refused file there is sent again.
    const bizkaia = (await filesOf('bizkaia'))[0]!;
    assert.equal((await call('POST', `/api/3/zuzenduTicketBAI/${bizkaia.id}`)).body.reason, 'no-zuzendu-in-bizkaia');
    standIns.bizkaia.rejectNext.push({ codigo: 'B4_2000020', descripcion: 'Dato no válido' });
    const bizkaiaRefused = await invoice('bizkaia', { codcliente: 'ANA', lineas: [{ descripcion: 'Bizkaia', pvpunitario: 10 }] });
    await t().app.runJob('ticketbai-send');
    const inBizkaia = (await filesOf('bizkaia')).find((row) => row.idfactura === bizkaiaRefused.idfactura)!;
    assert.deepEqual([inBizkaia.estado, inBizkaia.codigo], ['rechazado', 'B4_2000020']);
    const resent = await call('POST', `/api/3/reenviarTicketBAI/${inBizkaia.id}`);
    assert.equal(resent.status, 200, JSON.stringify(resent.body));
    assert.equal(resent.body.estado, 'pendiente', 'queued again; sent by the company\'s sender');
    await eventually(async () => assert.equal((await filesOf('bizkaia')).find((row) => row.id === inBizkaia.id)!.estado, 'aceptado'));
    clean();
  });

  it('cancels an invoice with a signed, unchained file, once', async () => {
    for (const territory of TERRITORIES) {
      const doc = await invoice(territory, { codcliente: 'ANA', lineas: [{ descripcion: 'Por error', pvpunitario: 15 }] });
      const cancelled = await call('POST', `/api/3/anularTicketBAI/${doc.idfactura}`);
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      const registro = cancelled.body.registro;
      assert.deepEqual([registro.tipo, registro.idanterior, registro.identificador], ['anulacion', null, null]);
      const xml = await assertSound(registro, undefined);
      assert.match(xml, /^<\?xml[^>]*\?><T:AnulaTicketBai xmlns:T="urn:ticketbai:anulacion">/);
      assert.equal((await call('POST', `/api/3/anularTicketBAI/${doc.idfactura}`)).status, 409);
      const shown = await call('GET', `/api/3/facturacliente/${doc.idfactura}`);
      assert.deepEqual([shown.body.ticketbai.anulada, shown.body.ticketbai.idanulacion], [true, registro.id]);
      // An issued invoice keeps its amounts and is never deleted.
      assert.equal((await call('PATCH', `/api/3/facturacliente/${doc.idfactura}`, { observaciones: 'nota' })).status, 200);
      assert.equal((await call('DELETE', `/api/3/facturacliente/${doc.idfactura}`)).status, 409);
      // The next invoice chains to the invoice before, not to the cancellation.
      const next = await invoice(territory, { codcliente: 'ANA', lineas: [{ descripcion: 'Bien', pvpunitario: 15 }] });
      const files = await filesOf(territory);
      const altas = files.filter((file) => file.tipo === 'alta');
      assert.equal(altas.at(-1)!.idfactura, next.idfactura);
      assert.equal(altas.at(-1)!.idanterior, altas.at(-2)!.id);
    }
    await t().app.runJob('ticketbai-send');
    for (const territory of TERRITORIES) {
      await eventually(async () => {
        const files = await filesOf(territory);
        assert.ok(files.every((file) => file.estado === 'aceptado'), JSON.stringify(files.map((file) => [file.id, file.tipo, file.estado, file.codigo])));
      });
      assert.ok(standIns[territory].received.some((got) => got.operation === 'anulacion' && got.nif === COMPANIES[territory].nif));
    }
    clean();
  });

  it('prints the identifier and the QR at the end of the invoice\'s PDF, the QR read back from its pixels', async () => {
    const doc = await invoice('araba', { codcliente: 'ANA', lineas: [{ descripcion: 'Con QR', pvpunitario: 42 }] });
    const file = (await filesOf('araba')).find((row) => row.idfactura === doc.idfactura)!;
    assert.match(file.qr, /^https:\/\/pruebas-ticketbai\.araba\.eus\/tbai\/qrtbai\/\?id=TBAI-/);
    const pdf = await exported(t(), doc.idfactura, 'PDF');
    const [qr, ...others] = await qrCodesOf(pdf);
    assert.equal(others.length, 0);
    assert.deepEqual([qr!.text, qr!.ecLevel], [file.qr, 'M']);
    assert.ok(qr!.sideMm >= 30 && qr!.sideMm <= 40, `${qr!.sideMm} mm`);
    // At the bottom of the invoice, after its text (a portrait layout), not at the top as VERI*FACTU's.
    assert.ok(qr!.topMm > 120, `${qr!.topMm} mm from the top`);
    // The identifier above it, on one line.
    const text = await pdfText(pdf);
    assert.ok(text.includes(file.identificador), text);
    assert.doesNotMatch(text, /QR tributario/);
  });

  // Two instances of the service share a database on a server engine (SQLite's is one process's file).
  if (engine !== 'sqlite') it('keeps one unbroken chain per company with two instances issuing at once', async () => {
    await withOtherInstance(t(), async (other) => {
      const create = (app: TestApp, index: number) => app.call('POST', '/api/3/crearFacturaCliente', { codalmacen: COMPANIES.bizkaia.almacen, codcliente: 'ANA', lineas: [{ descripcion: `Paralelo ${index}`, pvpunitario: 10 + index }] });
      const answers = await Promise.all(Array.from({ length: 12 }, (_, index) => create(index % 2 ? other : t(), index)));
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    }, { clock, config: { ticketbai: { endpoints: { bizkaia: standIns.bizkaia.url }, caFile: certificates.caFile, software: SOFTWARE, pollMs: 3_600_000, timeoutMs: 5000 } } });
    const altas = (await filesOf('bizkaia')).filter((file) => file.tipo === 'alta');
    let previous: Record<string, any> | undefined;
    for (const file of altas) {
      if (previous) {
        assert.equal(file.idanterior, previous.id, `file ${file.id} chains to the file before it`);
        assert.equal(file.firmaanterior, previous.firma.slice(0, 100));
        assert.ok(Number(file.numero) > Number(previous.numero) || file.serie !== previous.serie, 'in the order the invoices were numbered');
      }
      previous = file;
    }
    await t().app.runJob('ticketbai-send');
    await eventually(async () => assert.ok((await filesOf('bizkaia')).every((file) => file.estado === 'aceptado')));
    clean();
  });
}
