import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { translateDbError } from '../src/db/translate-error.ts';
import { AppError } from '../src/errors.ts';
import { documentType } from '../src/modules/documents/index.ts';
import { registroVerifactuModel } from '../src/modules/verifactu/index.ts';
import { forEachEngine } from './helpers/test-app.ts';
import { assertChained, assertValidSuministro, canValidateXml, expectedHuella, recordsOf, switchOn, withoutGuards, xmlValue } from './helpers/verifactu.ts';

/**
 * VERI*FACTU records (issue 25, docs/verifactu.md) on every engine: the company switch and its rules,
 * an alta for every customer invoice in the invoice's transaction, chained by the reference's hash
 * rule, anulaciones, rectifying and simplified invoices, IRPF, surcharge and foreign customers, the
 * territory's offset, issued invoices sealed, records append-only on every path, and every record's
 * XML valid against the AEAT's schema.
 */

// The service's clock, moved by the tests: winter 2027 first (Madrid +01:00, the Canaries +00:00).
let now = Date.parse('2027-01-15T09:30:00Z');
const clock = { now: () => now };

forEachEngine('VERI*FACTU records', (t) => {
  const call = (method: string, url: string, body?: unknown) => t().call(method, url, body);
  const invoice = async (body: Record<string, unknown>) => {
    const answer = await call('POST', '/api/3/crearFacturaCliente', body);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.doc as Record<string, any>;
  };
  const xmlOf = async (id: number) => {
    const answer = await t().request({ method: 'GET', url: `/api/3/registroverifactu/${id}/xml` });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.match(String(answer.headers['content-type']), /^application\/xml/);
    return answer.body;
  };
  const fields = (answer: { status: number; body: any }, status: number, expected: Record<string, string>) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    for (const [name, reason] of Object.entries(expected)) assert.equal(answer.body.fields?.[name], reason, JSON.stringify(answer.body));
  };

  before(async () => {
    // Each engine's suite starts in winter 2027.
    now = Date.parse('2027-01-15T09:30:00Z');
    for (const customer of [
      { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' },
      { codcliente: 'TIENDA', nombre: 'Droguería Luna', razonsocial: 'Droguería Luna SL', cifnif: 'X1234567L', regimeniva: 'Recargo' },
      { codcliente: 'PARIS', nombre: 'Atelier Paris', cifnif: 'FR40303265045' },
      { codcliente: 'SINNIF', nombre: 'Cliente de contado' },
      { codcliente: 'ATENAS', nombre: 'Athens Trading', cifnif: '094259216' },
    ]) {
      const created = await call('POST', '/api/3/cliente', customer);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
  });

  it('switches a company on only with a valid Spanish NIF, and keeps VERI*FACTU to the year\'s end', async () => {
    assert.equal((await call('PATCH', '/api/3/empresa/1', { cifnif: 'B1234567' })).status, 200);
    fields(await call('POST', '/api/3/verifactuempresa', { idempresa: 1, modo: 'verifactu' }), 422, { cifnif: 'invalid-spanish-tax-id' });
    fields(await call('POST', '/api/3/verifactuempresa', { idempresa: 1, modo: 'sometimes' }), 422, { modo: 'invalid-value' });
    const on = await switchOn(t());
    assert.deepEqual([on.modo, on.entorno, on.fechaactivacion, on.fechamodo], ['verifactu', 'pruebas', '2027-01-15', '2027-01-15']);
    assert.match(on.numeroinstalacion, /^1-\d{14}-[0-9A-F]{8}$/);
    fields(await call('PATCH', '/api/3/verifactuempresa/1', { numeroinstalacion: 'mine' }), 422, { numeroinstalacion: 'read-only' });
    fields(await call('PATCH', '/api/3/verifactuempresa/1', { modo: 'noverifactu' }), 422, { modo: 'verifactu-until-year-end' });
    fields(await call('PATCH', '/api/3/verifactuempresa/1', { modo: 'off' }), 422, { modo: 'verifactu-until-year-end' });
    fields(await call('DELETE', '/api/3/verifactuempresa/1'), 422, { modo: 'verifactu-until-year-end' });
    // The AEAT's production services only with the producer identified (producer.ts).
    fields(await call('PATCH', '/api/3/verifactuempresa/1', { entorno: 'produccion' }), 422, { entorno: 'producer-not-identified' });
    // While records are kept, the issuer's NIF stays valid.
    fields(await call('PATCH', '/api/3/empresa/1', { cifnif: 'B12345678' }), 422, { cifnif: 'invalid-spanish-tax-id' });
    const again = await call('GET', '/api/3/verifactuempresa/1');
    assert.equal(again.body.numeroinstalacion, on.numeroinstalacion);
  });

  it('chains an alta for every invoice and an anulación, each Huella as the reference computes it', async () => {
    const first = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Consultoría', cantidad: 3, pvpunitario: 80 }, { descripcion: 'Libro', pvpunitario: 20, codimpuesto: 'IVA4' }] });
    const second = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Soporte', pvpunitario: 100 }] });
    const third = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Formación', cantidad: 2, pvpunitario: 45.5 }] });
    const cancelled = await call('POST', `/api/3/anularFacturaCliente/${second.codigo}`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.doc.idfactura, second.idfactura);
    assert.equal(cancelled.body.registro.tipo, 'anulacion');

    const records = await recordsOf(t());
    assert.deepEqual(records.map((r) => [r.tipo, r.idfactura]), [['alta', first.idfactura], ['alta', second.idfactura], ['alta', third.idfactura], ['anulacion', second.idfactura]]);
    assertChained(records);
    const [alta1, , , anulacion] = records;
    // What the hash and the QR state, exactly as written.
    assert.deepEqual([alta1!.nifemisor, alta1!.numserie, alta1!.fechaexpedicion, alta1!.tipofactura, alta1!.cuotatotal, alta1!.importetotal],
      ['B12345674', first.codigo, '15-01-2027', 'F1', '51.20', '311.20']);
    assert.equal(alta1!.fechahorahuso, '2027-01-15T10:30:00+01:00');
    assert.equal(alta1!.qr, `https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=${encodeURIComponent(first.codigo)}&fecha=15-01-2027&importe=311.20`);
    assert.deepEqual([anulacion!.numserie, anulacion!.fechaexpedicion, anulacion!.tipofactura, anulacion!.importetotal, anulacion!.qr], [second.codigo, '15-01-2027', null, null, null]);
    assert.equal(records.every((r) => r.estado === 'pendiente' && r.modo === 'verifactu' && r.entorno === 'pruebas'), true);

    // The first record opens the chain; the others name the one before; the XML carries what was hashed.
    const xml1 = await xmlOf(alta1!.id);
    assert.equal(xmlValue(xml1, 'PrimerRegistro'), 'S');
    assert.deepEqual([xmlValue(xml1, 'CuotaTotal'), xmlValue(xml1, 'ImporteTotal'), xmlValue(xml1, 'Huella')], ['51.20', '311.20', alta1!.huella]);
    assert.deepEqual([xmlValue(xml1, 'IdSistemaInformatico'), xmlValue(xml1, 'IndicadorMultiplesOT')], ['IA', 'N']);
    const xml4 = await xmlOf(anulacion!.id);
    assert.match(xml4, /<sum1:RegistroAnulacion>/);
    assert.equal(xmlValue(xml4, 'NumSerieFactura'), third.codigo, 'chained to the record generated before it, not to the cancelled alta');
    assert.equal(xmlValue(xml4, 'NumSerieFacturaAnulada'), second.codigo);

    const chain = await call('GET', '/api/3/verifactuCadena?idempresa=1');
    assert.deepEqual(chain.body, { valid: true, records: 4, firstBroken: null, signatures: { signed: 0, unsigned: 0, firstInvalid: null }, eventos: { valid: true, events: 0, firstBroken: null, signatures: { signed: 0, unsigned: 0 } } });

    // The invoice stays, shown cancelled; its number is never given again.
    const shown = await call('GET', `/api/3/facturacliente/${second.idfactura}`);
    assert.deepEqual(shown.body.verifactu, { idregistro: records[1]!.id, qr: records[1]!.qr, anulada: true, idanulacion: anulacion!.id });
    assert.equal((await call('GET', `/api/3/facturacliente/${first.idfactura}`)).body.verifactu.anulada, false);
    const next = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Otro', pvpunitario: 1 }] });
    assert.equal(Number(next.numero), Number(third.numero) + 1);
  });

  it('refuses cancelling twice, an unknown invoice, one without a record, and one rectifying invoices correct', async () => {
    const anulada = (await recordsOf(t())).find((r) => r.tipo === 'anulacion')!;
    const twice = await call('POST', `/api/3/anularFacturaCliente/${anulada.idfactura}`);
    assert.equal(twice.status, 409);
    assert.deepEqual([twice.body.message, twice.body.idregistro], ['invoice-already-cancelled', anulada.id]);
    // Nor is an invoice that should never have been issued rectified.
    const rectified = await call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: anulada.idfactura, fecha: '2027-01-15' });
    assert.deepEqual([rectified.status, rectified.body.message], [409, 'invoice-already-cancelled']);
    assert.equal((await call('POST', '/api/3/anularFacturaCliente/999999')).status, 404);
    assert.equal((await call('POST', '/api/3/anularFacturaCliente')).body.message, 'record-not-specified');
    const before = await recordsOf(t());
    const refunded = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Devuelto', pvpunitario: 10 }] });
    assert.equal((await call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: refunded.idfactura, fecha: '2027-01-15' })).status, 200);
    const refused = await call('POST', `/api/3/anularFacturaCliente/${refunded.idfactura}`);
    assert.deepEqual([refused.status, refused.body.message, refused.body.reason], [409, 'document-has-children', 'refunds']);
    assert.equal((await recordsOf(t())).length, before.length + 2, 'a refused cancellation writes nothing');
  });

  it('records a rectifying invoice as R1 with the invoice it corrects, by differences', async () => {
    const original = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Mesa', cantidad: 2, pvpunitario: 150 }] });
    const refund = await call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: original.idfactura, fecha: '2027-01-15' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    const records = await recordsOf(t());
    const record = records.find((r) => r.idfactura === refund.body.doc.idfactura)!;
    assert.deepEqual([record.tipofactura, record.cuotatotal, record.importetotal], ['R1', '-63.00', '-363.00']);
    const xml = await xmlOf(record.id);
    assert.equal(xmlValue(xml, 'TipoRectificativa'), 'I');
    assert.match(xml, new RegExp(`<sum1:IDFacturaRectificada>\\s*<sum1:IDEmisorFactura>B12345674</sum1:IDEmisorFactura>\\s*<sum1:NumSerieFactura>${original.codigo}</sum1:NumSerieFactura>\\s*<sum1:FechaExpedicionFactura>15-01-2027</sum1:FechaExpedicionFactura>`));
    assertChained(records);
  });

  it('leaves IRPF out of ImporteTotal, states the surcharge under regime 18, and names a foreign customer by IDOtro', async () => {
    const withholding = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Honorarios', pvpunitario: 100, irpf: 15 }] });
    assert.deepEqual([withholding.neto, withholding.totaliva, withholding.totalirpf, withholding.total], [100, 21, 15, 106]);
    const surcharge = await invoice({ codcliente: 'TIENDA', lineas: [{ descripcion: 'Jabón', cantidad: 10, pvpunitario: 10 }] });
    const foreign = await invoice({ codcliente: 'PARIS', codpais: 'FRA', lineas: [{ descripcion: 'Licencia', pvpunitario: 500 }] });
    const greek = await invoice({ codcliente: 'ATENAS', codpais: 'GRC', lineas: [{ descripcion: 'Licencia', pvpunitario: 500 }] });
    const records = await recordsOf(t());
    const of = (doc: Record<string, any>) => records.find((r) => r.idfactura === doc.idfactura)!;
    assert.deepEqual([of(withholding).cuotatotal, of(withholding).importetotal], ['21.00', '121.00']);
    assert.deepEqual([of(surcharge).cuotatotal, of(surcharge).importetotal], ['26.20', '126.20']);
    const surchargeXml = await xmlOf(of(surcharge).id);
    assert.deepEqual(['ClaveRegimen', 'TipoImpositivo', 'CuotaRepercutida', 'TipoRecargoEquivalencia', 'CuotaRecargoEquivalencia'].map((name) => xmlValue(surchargeXml, name)), ['18', '21.00', '21.00', '5.20', '5.20']);
    assert.match(surchargeXml, /<sum1:IDDestinatario>\s*<sum1:NombreRazon>Droguería Luna SL<\/sum1:NombreRazon>\s*<sum1:NIF>X1234567L<\/sum1:NIF>/);
    const foreignXml = await xmlOf(of(foreign).id);
    assert.deepEqual(['CodigoPais', 'IDType', 'ID'].map((name) => xmlValue(foreignXml, name)), ['FR', '02', 'FR40303265045']);
    // A VAT number stored without its prefix gets it (AEAT validation 1122); Greece's is EL.
    const greekXml = await xmlOf(of(greek).id);
    assert.deepEqual(['CodigoPais', 'IDType', 'ID'].map((name) => xmlValue(greekXml, name)), ['GR', '02', 'EL094259216']);
    assertChained(records);
  });

  it('records an invoice generated from a delivery note, and a simplified invoice as F2 without recipient, its refund as R5', async () => {
    const note = await call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'ANA', lineas: [{ descripcion: 'Entregado', cantidad: 4, pvpunitario: 12.5 }] });
    assert.equal(note.status, 200, JSON.stringify(note.body));
    assert.equal((await call('PATCH', `/api/3/albarancliente/${note.body.doc.idalbaran}`, { idestado: 8 })).status, 200);
    const [link] = (await call('GET', `/api/3/doctransformation?filter[model1]=AlbaranCliente&filter[iddoc1]=${note.body.doc.idalbaran}`)).body;
    const generated = (await recordsOf(t())).find((r) => r.idfactura === link.iddoc2);
    assert.deepEqual([generated?.tipo, generated?.tipofactura, generated?.importetotal], ['alta', 'F1', '60.50']);

    // A simplified invoice names no recipient, so a customer without a tax id is fine.
    const ticket = await invoice({ codcliente: 'SINNIF', codserie: 'S', lineas: [{ descripcion: 'Ticket', pvpunitario: 10 }] });
    const refund = await call('POST', '/api/3/crearFacturaRectificativaCliente', { idfactura: ticket.idfactura, fecha: '2027-01-15' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    const records = await recordsOf(t());
    const of = (id: number) => records.find((r) => r.idfactura === id)!;
    assert.deepEqual([of(ticket.idfactura).tipofactura, of(refund.body.doc.idfactura).tipofactura], ['F2', 'R5']);
    for (const id of [ticket.idfactura, refund.body.doc.idfactura]) assert.doesNotMatch(await xmlOf(of(id).id), /Destinatarios/);
    assertChained(records);
  });

  it('refuses, whole, an invoice its record could not describe', async () => {
    const count = (await recordsOf(t())).length;
    const invoices = (await call('GET', '/api/3/facturacliente?limit=1000')).body.length;
    fields(await call('POST', '/api/3/crearFacturaCliente', { codcliente: 'SINNIF', lineas: [{ descripcion: 'x', pvpunitario: 5 }] }), 422, { cifnif: 'required' });
    fields(await call('POST', '/api/3/crearFacturaCliente', { codcliente: 'ANA', lineas: [] }), 422, { lineas: 'required' });
    fields(await call('POST', '/api/3/crearFacturaCliente', { codcliente: 'ANA', fecha: '2027-02-01', lineas: [{ descripcion: 'x', pvpunitario: 5 }] }), 422, { fecha: 'future-date' });
    // A simplified invoice: at most 3,000 (validation 1150), and never reverse charge (1197).
    fields(await call('POST', '/api/3/crearFacturaCliente', { codcliente: 'SINNIF', codserie: 'S', lineas: [{ descripcion: 'x', pvpunitario: 2500 }] }), 422, { codserie: 'simplified-over-limit' });
    fields(await call('POST', '/api/3/crearFacturaCliente', { codcliente: 'SINNIF', codserie: 'S', operacion: 'inv-sujeto-pasivo', lineas: [{ descripcion: 'x', pvpunitario: 100 }] }), 422, { lineas: 'reverse-charge-in-simplified' });
    fields(await call('POST', '/api/3/crearFacturaCliente', { codcliente: 'PARIS', codpais: 'XXX', lineas: [{ descripcion: 'x', pvpunitario: 5 }] }), 422, { codpais: 'unknown-country' });
    assert.equal((await recordsOf(t())).length, count);
    assert.equal((await call('GET', '/api/3/facturacliente?limit=1000')).body.length, invoices, 'no invoice without its record');
  });

  it('dates records with the territory\'s offset: the Canaries and Madrid, winter and summer', async () => {
    assert.equal((await call('PATCH', '/api/3/empresa/1', { codpostal: '35001', provincia: 'Las Palmas' })).status, 200);
    const canaryWinter = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'a', pvpunitario: 1 }] });
    now = Date.parse('2027-07-15T09:30:00Z');
    const canarySummer = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'b', pvpunitario: 1 }] });
    assert.equal((await call('PATCH', '/api/3/empresa/1', { codpostal: '28001', provincia: 'Madrid' })).status, 200);
    const madridSummer = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'c', pvpunitario: 1 }] });
    const records = await recordsOf(t());
    const stamp = (doc: Record<string, any>) => records.find((r) => r.idfactura === doc.idfactura)!.fechahorahuso;
    assert.deepEqual([stamp(canaryWinter), stamp(canarySummer), stamp(madridSummer)], ['2027-01-15T09:30:00+00:00', '2027-07-15T10:30:00+01:00', '2027-07-15T11:30:00+02:00']);
    assertChained(records);
  });

  it('seals an issued invoice: its identity, lines and amounts never change, it is never deleted; its payment and notes do', async () => {
    const doc = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Sellada', cantidad: 2, pvpunitario: 30 }] });
    const id = doc.idfactura;
    const [line] = (await call('GET', `/api/3/lineafacturacliente?filter[idfactura]=${id}`)).body;
    const issued = (answer: { status: number; body: any }, field: string) => {
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.message, 'invoice-issued');
      assert.equal(answer.body.fields[field], 'sealed', JSON.stringify(answer.body));
    };
    issued(await call('PATCH', `/api/3/facturacliente/${id}`, { fecha: '2027-07-14' }), 'fecha');
    issued(await call('PATCH', `/api/3/facturacliente/${id}`, { nombrecliente: 'Otra' }), 'nombrecliente');
    issued(await call('PATCH', `/api/3/facturacliente/${id}`, { cifnif: '87654321X' }), 'cifnif');
    issued(await call('PATCH', `/api/3/facturacliente/${id}`, { dtopor1: 10 }), 'dtopor1');
    issued(await call('PATCH', `/api/3/facturacliente/${id}`, { codserie: 'R' }), 'codserie');
    issued(await call('PUT', `/api/3/editarFacturaCliente/${id}`, { lineas: [{ descripcion: 'Sellada', cantidad: 3, pvpunitario: 30 }] }), 'lineas');
    issued(await call('PATCH', `/api/3/lineafacturacliente/${line.idlinea}`, { cantidad: 5 }), 'lineas');
    issued(await call('POST', '/api/3/lineafacturacliente', { idfactura: id, descripcion: 'más', pvpunitario: 1 }), 'lineas');
    issued(await call('DELETE', `/api/3/lineafacturacliente/${line.idlinea}`), 'lineas');
    const deleted = await call('DELETE', `/api/3/facturacliente/${id}`);
    assert.deepEqual([deleted.status, deleted.body.message], [409, 'fiscal-record-exists']);
    // The same lines sent without their ids would replace them (rectifying lines point to them by id): refused.
    issued(await call('PUT', `/api/3/editarFacturaCliente/${id}`, { lineas: [{ descripcion: 'Sellada', cantidad: 2, pvpunitario: 30 }] }), 'lineas');
    // Sent again with their ids and unchanged, they are no change.
    assert.equal((await call('PUT', `/api/3/editarFacturaCliente/${id}`, { observaciones: 'Entregada', lineas: [{ idlinea: line.idlinea, descripcion: 'Sellada', cantidad: 2, pvpunitario: 30 }] })).status, 200);
    assert.equal((await call('POST', `/api/3/pagarFacturaCliente/${id}`, { pagada: true })).status, 200);
    const after = (await call('GET', `/api/3/facturacliente/${id}`)).body;
    assert.deepEqual([after.observaciones, after.pagada, after.total, after.codigo, after.fecha], ['Entregada', true, doc.total, doc.codigo, doc.fecha]);
    assert.deepEqual((await call('GET', `/api/3/lineafacturacliente?filter[idfactura]=${id}`)).body.map((l: any) => l.idlinea), [line.idlinea]);
    issued(await call('PATCH', `/api/3/facturacliente/${id}`, { codpais: 'FRA' }), 'codpais');
    // A plugin writing through the model store meets the same seal.
    const { store } = t().app.ctx;
    const invoiceType = documentType('FacturaCliente');
    const sealedBy = async (write: () => Promise<unknown>) => write().then(() => undefined, (error: AppError) => [error.code, Object.keys((error.details as any)?.fields ?? {})]);
    assert.deepEqual(await sealedBy(() => store.update(invoiceType.header, id, { total: 0, neto: 0 })), ['invoice-issued', ['neto', 'total']]);
    assert.deepEqual(await sealedBy(() => store.update(invoiceType.line, line.idlinea, { cantidad: 9 })), ['invoice-issued', ['lineas']]);
    assert.deepEqual(await sealedBy(() => store.update(invoiceType.header, id, { observaciones: 'Desde un plugin' })), undefined);
    assert.deepEqual([(await call('GET', `/api/3/facturacliente/${id}`)).body.total, (await call('GET', `/api/3/lineafacturacliente/${line.idlinea}`)).body.cantidad], [doc.total, 2]);
  });

  it('keeps records append-only on every path: the API, the store and plain SQL', async () => {
    const [record] = await recordsOf(t());
    for (const [method, url] of [['PUT', `/api/3/registroverifactu/${record!.id}`], ['PATCH', `/api/3/registroverifactus/${record!.id}`], ['DELETE', `/api/3/registroverifactu/${record!.id}`], ['POST', '/api/3/registroverifactu']]) {
      const answer = await t().request({ method: method as 'PUT', url, payload: { huella: 'X' } });
      assert.equal(answer.statusCode, 405, `${method} ${url}`);
      assert.match(String(answer.headers.allow), /GET/);
    }
    const { store, database } = t().app.ctx;
    const refusedBy = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (error) {
        return (translateDbError(error, 'update') ?? error) as AppError;
      }
      return undefined;
    };
    assert.equal((await refusedBy(() => store.update(registroVerifactuModel, record!.id, { importetotal: '0.00' })))?.code, 'record-immutable');
    assert.equal((await refusedBy(() => store.remove(registroVerifactuModel, record!.id)))?.code, 'record-immutable');
    assert.equal((await refusedBy(() => database.kysely.updateTable('registros_verifactu').set({ huella: 'F'.repeat(64) }).where('id', '=', record!.id).execute()))?.code, 'record-immutable');
    assert.equal((await refusedBy(() => database.kysely.deleteFrom('registros_verifactu').execute()))?.code, 'record-immutable');
    assert.equal((await refusedBy(() => sql`UPDATE registros_verifactu SET registro = '{}'`.execute(database.kysely)))?.code, 'record-immutable');
    assert.equal((await recordsOf(t()))[0]!.huella, record!.huella);
    assert.deepEqual((await t().call('GET', '/api/3/verifactuCadena?idempresa=1')).body.valid, true);
  });

  it('writes every record as a RegFactuSistemaFacturacion message that xmllint validates against the AEAT schema', { skip: !canValidateXml && 'xmllint is not installed' }, async () => {
    const records = await recordsOf(t());
    assert.ok(records.length >= 10);
    for (const record of records) assertValidSuministro(await xmlOf(record.id), `record ${record.id} (${record.tipo} ${record.tipofactura ?? ''})`);
  });

  it('finds the first broken link when a record is altered behind the service\'s back', async () => {
    const records = await recordsOf(t());
    const target = records[2]!;
    const { database } = t().app.ctx;
    // Only a database administrator can do this: drop the guard, alter a record, put the guard back.
    await withoutGuards(t(), 'registros_verifactu', async () => {
      await database.kysely.updateTable('registros_verifactu').set({ importetotal: '1.00' }).where('id', '=', target.id).execute();
    });
    const check = await t().call('GET', '/api/3/verifactuCadena?idempresa=1');
    assert.deepEqual(check.body, { valid: false, records: 3, firstBroken: { id: target.id, expected: expectedHuella({ ...target, importetotal: '1.00' }, records[1]!.huella), stored: target.huella }, signatures: { signed: 0, unsigned: 0, firstInvalid: null }, eventos: { valid: true, events: 0, firstBroken: null, signatures: { signed: 0, unsigned: 0 } } });
  });

  it('alerts, and goes on invoicing, when the previous record is dated ahead or (NO VERI*FACTU) no longer hashes to itself', async () => {
    const anomalies = async () => (await call('GET', '/api/3/events?type=verifactu.anomaly&limit=100')).body.events.map((event: any) => event.payload);
    const last = (await recordsOf(t())).at(-1)!;
    // This instance's clock five minutes behind the record before: RD 1007/2023 art. 7.i.
    const kept = now;
    now = Date.parse(last.fechahorahuso) - 5 * 60_000;
    const behind = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'reloj atrasado', pvpunitario: 1 }] });
    now = kept;
    assert.deepEqual((await anomalies()).map((a: any) => [a.check, a.idregistro]), [['time', last.id]]);
    assert.ok((await recordsOf(t())).some((r) => r.idfactura === behind.idfactura), 'the invoice and its record were still written');

    now = Date.parse('2028-01-03T08:00:00Z');
    assert.equal((await call('PATCH', '/api/3/verifactuempresa/1', { modo: 'noverifactu' })).status, 200);
    const tail = (await recordsOf(t())).at(-1)!;
    // The previous record's own hash is recomputed from the record it keeps: alter what it says.
    await withoutGuards(t(), 'registros_verifactu', async () => {
      const row = await t().app.ctx.database.kysely.selectFrom('registros_verifactu').select('registro').where('id', '=', tail.id).executeTakeFirstOrThrow();
      const content = JSON.parse(String(row.registro));
      content.CuotaTotal = '0.00';
      await t().app.ctx.database.kysely.updateTable('registros_verifactu').set({ registro: JSON.stringify(content) }).where('id', '=', tail.id).execute();
    });
    await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'tras la alteración', pvpunitario: 1 }] });
    assert.deepEqual((await anomalies()).map((a: any) => [a.check, a.idregistro]), [['time', last.id], ['chain', tail.id], ['signature', null]],
      'and, without a certificate, the NO VERI*FACTU record is kept unsigned and alerted');
    const events = (await call('GET', '/api/3/eventoverifactu?filter[idempresa]=1&sort[id]=ASC')).body.map((event: any) => event.tipo);
    assert.deepEqual(events, ['01', '04', '04'], 'the operation opens, and each anomaly (the altered chain, the missing signature) is an event');
  });

  it('records nothing for a company switched off, whose invoices stay editable', async () => {
    now = Date.parse('2028-01-03T09:00:00Z');
    const off = await call('PATCH', '/api/3/verifactuempresa/1', { modo: 'off' });
    assert.equal(off.status, 200, 'VERI*FACTU may end with the year');
    assert.equal(off.body.fechamodo, '2028-01-03');
    // Test records never share a chain with production ones; a switch with records stays.
    fields(await call('PATCH', '/api/3/verifactuempresa/1', { entorno: 'produccion' }), 422, { entorno: 'fiscal-records-exist' });
    assert.equal((await call('DELETE', '/api/3/verifactuempresa/1')).body.message, 'record-in-use');
    const count = (await recordsOf(t())).length;
    const doc = await invoice({ codcliente: 'SINNIF', lineas: [{ descripcion: 'sin registro', pvpunitario: 5 }] });
    assert.equal((await recordsOf(t())).length, count);
    assert.equal((await call('GET', `/api/3/facturacliente/${doc.idfactura}`)).body.verifactu, undefined);
    assert.equal((await call('PATCH', `/api/3/facturacliente/${doc.idfactura}`, { nombrecliente: 'Otro nombre' })).status, 200);
    assert.equal((await call('POST', `/api/3/anularFacturaCliente/${doc.idfactura}`)).body.message, 'invoice-not-recorded');
    assert.equal((await call('DELETE', `/api/3/facturacliente/${doc.idfactura}`)).status, 200);
  });
}, { clock });
