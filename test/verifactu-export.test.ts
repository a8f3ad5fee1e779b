import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeResults, prepareEn16931, validateEn16931 } from './helpers/en16931.ts';
import { exported, pdfText, qrCodesOf } from './helpers/pdf-reading.ts';
import { forEachEngine } from './helpers/test-app.ts';
import { recordsOf, switchOn } from './helpers/verifactu.ts';

/**
 * The QR of an invoice with a record (issue 25, item 5): the PDF's first page rendered to pixels and
 * read by a QR decoder (zxing-wasm) gives the record's address, at error correction M, 30-40 mm wide,
 * at the top, «QR tributario:» above and, in VERI*FACTU mode only, «VERI*FACTU» below; the
 * e-invoices carry the address.
 */
forEachEngine('VERI*FACTU QR on exported invoices', (t) => {
  const invoice = async (body: Record<string, unknown>) => {
    const answer = await t().call('POST', '/api/3/crearFacturaCliente', body);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.doc as Record<string, any>;
  };

  before(async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' })).status, 201);
  });

  it('prints no QR on an invoice without a record', async () => {
    const doc = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Antes', pvpunitario: 10 }] });
    const pdf = await exported(t(), doc.idfactura, 'PDF');
    assert.deepEqual(await qrCodesOf(pdf), []);
    assert.doesNotMatch(await pdfText(pdf), /QR tributario/);
  });

  it('prints the record\'s QR at the top of page 1, decodable, level M, 30-40 mm, with its caption and the VERI*FACTU legend', async () => {
    await switchOn(t());
    const doc = await invoice({ codcliente: 'ANA', lineas: [{ descripcion: 'Consultoría & diseño', cantidad: 3, pvpunitario: 80.5 }] });
    const [record] = (await recordsOf(t())).filter((r) => r.idfactura === doc.idfactura);
    const pdf = await exported(t(), doc.idfactura, 'PDF');
    const codes = await qrCodesOf(pdf);
    assert.equal(codes.length, 1);
    const [code] = codes;
    assert.equal(code!.text, record!.qr);
    assert.equal(code!.ecLevel, 'M');
    assert.ok(code!.sideMm >= 30 && code!.sideMm <= 40, `${code!.sideMm} mm`);
    assert.ok(code!.topMm < 40, `${code!.topMm} mm from the top`);
    const text = await pdfText(pdf);
    assert.match(text, /QR tributario:\s*VERI\*FACTU/);
    // Issued, so never a draft.
    assert.doesNotMatch(text, /BORRADOR/i);
  });

  it('carries the QR address in the UBL, CII and Facturae e-invoices, which still keep every EN 16931 rule', async () => {
    await prepareEn16931();
    const [record] = (await recordsOf(t())).slice(-1);
    const escaped = String(record!.qr).replaceAll('&', '&amp;');
    const ubl = String(await exported(t(), record!.idfactura, 'UBL'));
    assert.match(ubl, new RegExp(`<cac:AdditionalDocumentReference>\\s*<cbc:ID>QR tributario</cbc:ID>[\\s\\S]*<cbc:URI>${escapeRegExp(escaped)}</cbc:URI>`));
    const cii = String(await exported(t(), record!.idfactura, 'CII'));
    assert.match(cii, new RegExp(`<ram:AdditionalReferencedDocument>\\s*<ram:IssuerAssignedID>QR tributario</ram:IssuerAssignedID>\\s*<ram:URIID>${escapeRegExp(escaped)}</ram:URIID>\\s*<ram:TypeCode>916</ram:TypeCode>`));
    for (const [syntax, xml] of [['ubl', ubl], ['cii', cii]] as const) {
      const { fatal } = await validateEn16931(syntax, xml);
      assert.deepEqual(fatal, [], `${syntax}: ${describeResults(fatal)}`);
    }
    const facturae = String(await exported(t(), record!.idfactura, 'FACTURAE'));
    assert.match(facturae, new RegExp(`<InvoiceAdditionalInformation>QR tributario: ${escapeRegExp(escaped)}`));
  });

  it('in NO VERI*FACTU mode, addresses ValidarQRNoVerifactu and prints no VERI*FACTU legend; a second company marks several taxpayers', async () => {
    const company = await t().call('POST', '/api/3/empresa', { nombre: 'Segunda SL', cifnif: 'A58818501' });
    assert.equal(company.status, 201, JSON.stringify(company.body));
    const idempresa = company.body.idempresa;
    assert.equal((await t().call('POST', '/api/3/almacen', { codalmacen: 'SEG', nombre: 'Segunda', idempresa })).status, 201);
    assert.equal((await t().call('POST', '/api/3/verifactuempresa', { idempresa, modo: 'noverifactu' })).status, 201);
    const doc = await invoice({ codcliente: 'ANA', codalmacen: 'SEG', lineas: [{ descripcion: 'Servicio', pvpunitario: 100 }] });
    assert.equal(doc.idempresa, idempresa);
    const [record] = await recordsOf(t(), idempresa);
    assert.match(record!.qr, /^https:\/\/prewww2\.aeat\.es\/wlpl\/TIKE-CONT\/ValidarQRNoVerifactu\?nif=A58818501&numserie=/);
    assert.equal(record!.huellaanterior, null, 'each company has its own chain');
    const pdf = await exported(t(), doc.idfactura, 'PDF');
    assert.equal((await qrCodesOf(pdf))[0]?.text, record!.qr);
    const text = await pdfText(pdf);
    assert.match(text, /QR tributario:/);
    assert.doesNotMatch(text, /VERI\*FACTU/);
    const xml = (await t().request({ method: 'GET', url: `/api/3/registroverifactu/${record!.id}/xml` })).body;
    assert.match(xml, /<sum1:IndicadorMultiplesOT>S<\/sum1:IndicadorMultiplesOT>/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
