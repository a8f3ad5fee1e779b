import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { extractText, getDocumentProxy } from 'unpdf';
import { handmadePng } from './helpers/png.ts';
import { forEachEngine, multipart, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Document export through the API (issue 11): the eight `exportar*` endpoints by id and by code,
 * every type, the errors, the language and print-format choices, the logo, access rules; on
 * SQLite in full and once per other engine. The renderers' own details are tested on built views
 * (test/export-pdf.test.ts, test/einvoice.test.ts).
 */

const DOCS = ['FacturaCliente', 'AlbaranCliente', 'PedidoCliente', 'PresupuestoCliente', 'FacturaProveedor', 'AlbaranProveedor', 'PedidoProveedor', 'PresupuestoProveedor'];
const KEYS: Record<string, string> = { Factura: 'idfactura', Albaran: 'idalbaran', Pedido: 'idpedido', Presupuesto: 'idpresupuesto' };
const keyOf = (doc: string) => KEYS[doc.replace(/(Cliente|Proveedor)$/, '')]!;

async function created(t: TestApp, url: string, body: Record<string, unknown>, status = 201) {
  const response = await t.call('POST', url, body);
  assert.equal(response.status, status, `${url}: ${JSON.stringify(response.body)}`);
  return response.body;
}

async function download(t: TestApp, url: string, key?: string) {
  const response = await t.request({ method: 'GET', url, key });
  return { status: response.statusCode, headers: response.headers, bytes: response.rawPayload, json: () => JSON.parse(response.body) };
}

async function pdfText(bytes: Buffer): Promise<{ text: string; pages: number }> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text, totalPages } = await extractText(pdf, { mergePages: true });
  return { text, pages: totalPages };
}

/** A 2 x 2 PNG for the logo. */
function tinyPng(): Buffer {
  return handmadePng(2, 2);
}

/** One document of each type for customer EXP and supplier EXPP; returns their id and code by type. */
async function makeDocuments(t: TestApp): Promise<Record<string, { id: number; codigo: string; total: number }>> {
  const made: Record<string, { id: number; codigo: string; total: number }> = {};
  for (const doc of DOCS) {
    const sales = doc.endsWith('Cliente');
    const body = {
      ...(sales ? { codcliente: 'EXP' } : { codproveedor: 'EXPP' }),
      observaciones: `Notes of ${doc}`,
      lineas: [
        { referencia: 'EXP-1', descripcion: `Widget for ${doc}`, cantidad: 3, pvpunitario: 400.5, dtopor: 10 },
        { descripcion: 'Installation service', cantidad: 1, pvpunitario: 150, codimpuesto: 'IVA10' },
      ],
    };
    const answer = await created(t, `/api/3/crear${doc}`, body, 200);
    made[doc] = { id: answer.doc[keyOf(doc)], codigo: answer.doc.codigo, total: answer.doc.total };
  }
  return made;
}

async function customerAndSupplier(t: TestApp) {
  await created(t, '/api/3/producto', { referencia: 'EXP-1', descripcion: 'Widget', precio: 400.5 });
  await created(t, '/api/3/cliente', { codcliente: 'EXP', nombre: 'Export Buyer', razonsocial: 'Export Buyer SL', cifnif: 'B12345674' });
  await created(t, '/api/3/proveedor', { codproveedor: 'EXPP', nombre: 'Export Seller', cifnif: 'A58818501' });
}

describe('document export [sqlite]', () => {
  let t: TestApp;
  let docs: Record<string, { id: number; codigo: string; total: number }>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-test-'));

  before(async () => {
    t = await startTestApp('sqlite', { config: { dataDir } });
    await customerAndSupplier(t);
    docs = await makeDocuments(t);
  });
  after(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists the eight export endpoints at the root', async () => {
    const root = await t.call('GET', '/api/3');
    for (const doc of DOCS) assert.ok(root.body.resources.includes(`exportar${doc}`), doc);
  });

  it('exports each of the eight documents by id and by code as a PDF showing its code, subject, lines and total', async () => {
    for (const doc of DOCS) {
      const { id, codigo, total } = docs[doc]!;
      const byId = await download(t, `/api/3/exportar${doc}/${id}`);
      const byCode = await download(t, `/api/3/exportar${doc}/${encodeURIComponent(codigo)}`);
      for (const answer of [byId, byCode]) {
        assert.equal(answer.status, 200, `${doc}: ${answer.bytes.toString().slice(0, 200)}`);
        assert.equal(answer.headers['content-type'], 'application/pdf');
        assert.match(String(answer.headers['content-disposition']), new RegExp(`^inline; filename="[A-Za-z_]+_${codigo}\\.pdf"$`));
        assert.equal(answer.bytes.subarray(0, 5).toString(), '%PDF-');
      }
      const { text } = await pdfText(byCode.bytes);
      assert.ok(text.includes(codigo), `${doc} code`);
      assert.ok(text.includes(doc.endsWith('Cliente') ? 'Export Buyer' : 'Export Seller'), `${doc} subject`);
      assert.ok(text.includes(`Widget for ${doc}`) && text.includes('Installation service'), `${doc} lines`);
      // Spanish (the installation's language): thousands with a dot, decimals with a comma.
      const spanish = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: 'always' }).format(total);
      assert.ok(text.includes(spanish), `${doc} total ${spanish}`);
    }
  });

  it('writes CSV with the header fields and one row per line, numbers as numbers', async () => {
    for (const doc of DOCS) {
      const answer = await download(t, `/api/3/exportar${doc}/${docs[doc]!.id}?type=csv`);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-type'], 'text/csv; charset=utf-8');
      assert.match(String(answer.headers['content-disposition']), /^attachment; filename=".+\.csv"$/);
      const rows: string[][] = parse(answer.bytes.toString('utf8').replace(/^\uFEFF/, ''), { delimiter: ';', relax_column_count: true, skip_empty_lines: true });
      const header = Object.fromEntries(rows[0]!.map((name, index) => [name, rows[1]![index]]));
      assert.equal(header.codigo, docs[doc]!.codigo);
      assert.equal(Number(header.total), docs[doc]!.total);
      const columns = rows[2]!;
      const lines = rows.slice(3).map((row) => Object.fromEntries(columns.map((name, index) => [name, row[index]])));
      assert.deepEqual(lines.map((line) => [line.descripcion, Number(line.cantidad), Number(line.pvpunitario), Number(line.dtopor), Number(line.pvptotal)]), [
        [`Widget for ${doc}`, 3, 400.5, 10, 1081.35],
        ['Installation service', 1, 150, 0, 150],
      ]);
    }
  });

  it('writes XLSX (XLS accepted) with numbers as numbers and dates as dates', async () => {
    const { id, codigo, total } = docs.FacturaCliente!;
    for (const type of ['XLSX', 'xls']) {
      const answer = await download(t, `/api/3/exportarFacturaCliente/${id}?type=${type}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(answer.bytes as unknown as ExcelJS.Buffer);
      const fields = new Map<string, unknown>();
      workbook.getWorksheet('document')!.eachRow((row, index) => index > 1 && fields.set(String(row.getCell(1).value), row.getCell(2).value));
      assert.equal(fields.get('codigo'), codigo);
      assert.equal(fields.get('total'), total);
      assert.ok(fields.get('fecha') instanceof Date, 'fecha is a date cell');
      const sheet = workbook.getWorksheet('lines')!;
      const header = (sheet.getRow(1).values as unknown[]).slice(1);
      const first = (sheet.getRow(2).values as unknown[]).slice(1);
      assert.equal(first[header.indexOf('cantidad')], 3);
      assert.equal(first[header.indexOf('pvptotal')], 1081.35);
    }
  });

  it('writes UBL, CII and Facturae for invoices whose totals are the invoice\'s', async () => {
    for (const doc of ['FacturaCliente', 'FacturaProveedor']) {
      const { id, total } = docs[doc]!;
      for (const type of ['UBL', 'CII', 'FACTURAE']) {
        const answer = await download(t, `/api/3/exportar${doc}/${id}?type=${type}`);
        assert.equal(answer.status, 200, `${doc} ${type}: ${answer.bytes.toString().slice(0, 300)}`);
        assert.equal(answer.headers['content-type'], 'application/xml; charset=utf-8');
        const xml = answer.bytes.toString('utf8');
        assert.ok(xml.startsWith('<?xml'), type);
        assert.ok(xml.includes(total.toFixed(2)), `${doc} ${type} total ${total}`);
      }
    }
  });

  it('refuses e-invoices of other documents, unknown types and formats, and missing documents', async () => {
    const quote = await download(t, `/api/3/exportarPresupuestoCliente/${docs.PresupuestoCliente!.id}?type=UBL`);
    assert.equal(quote.status, 400);
    assert.deepEqual([quote.json().message, quote.json().supported], ['export-type-unavailable', ['PDF', 'CSV', 'XLSX']]);
    const unknown = await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}?type=MAIL`);
    assert.deepEqual([unknown.status, unknown.json().message, unknown.json().supported], [400, 'invalid-export-type', ['PDF', 'CSV', 'XLSX', 'UBL', 'CII', 'FACTURAE']]);
    const twice = await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}?type=PDF&type=CSV`);
    assert.deepEqual([twice.status, twice.json().message], [400, 'duplicate-parameter']);
    const badFormat = await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}?format=abc`);
    assert.deepEqual([badFormat.status, badFormat.json().message], [400, 'invalid-export-format']);
    const noFormat = await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}?format=999999`);
    assert.deepEqual([noFormat.status, noFormat.json().message], [404, 'format-not-found']);
    for (const missing of ['999999', 'NOPE2026', 'x'.repeat(90)]) {
      const answer = await download(t, `/api/3/exportarFacturaCliente/${missing}`);
      assert.deepEqual([answer.status, answer.json().message], [404, 'record-not-found'], missing);
    }
    const tooLong = await download(t, `/api/3/exportarFacturaCliente/${'x'.repeat(300)}`);
    assert.deepEqual([tooLong.status, tooLong.json().message], [400, 'invalid-url']);
    for (const url of ['/api/3/exportarFacturaCliente', '/api/3/exportarFacturaCliente/']) {
      const answer = await download(t, url);
      assert.deepEqual([answer.status, answer.json().message], [400, 'record-not-specified'], url);
    }
    const post = await t.call('POST', `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}`, {});
    assert.deepEqual([post.status, post.body.message, post.headers.allow], [405, 'method-not-allowed', 'GET, HEAD, OPTIONS']);
  });

  it('chooses the language: the parameter, else the customer\'s, else the installation\'s; unknown ones fall back', async () => {
    const { id, codigo, total } = docs.FacturaCliente!;
    const english = await download(t, `/api/3/exportarFacturaCliente/${id}?lang=en_GB`);
    assert.match(String(english.headers['content-disposition']), new RegExp(`filename="Invoice_${codigo}\\.pdf"`));
    const englishText = (await pdfText(english.bytes)).text;
    assert.ok(englishText.includes(new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, useGrouping: 'always' }).format(total)), 'English number format');
    assert.ok(englishText.includes('Invoice') && !englishText.includes('Base imponible') && !englishText.includes('Fecha'), englishText);
    const unknown = await download(t, `/api/3/exportarFacturaCliente/${id}?lang=xx_YY`);
    assert.match(String(unknown.headers['content-disposition']), /filename="Factura_/);
    assert.equal((await t.call('PATCH', '/api/3/cliente/EXP', { langcode: 'en_GB' })).status, 200);
    const customers = await download(t, `/api/3/exportarFacturaCliente/${id}`);
    assert.match(String(customers.headers['content-disposition']), /filename="Invoice_/);
    const asked = await download(t, `/api/3/exportarFacturaCliente/${id}?lang=es`);
    assert.match(String(asked.headers['content-disposition']), /filename="Factura_/);
    assert.equal((await t.call('PATCH', '/api/3/cliente/EXP', { langcode: null })).status, 200);
  });

  it('applies a print format: asked by id, or the automatic one of the serie (a refund\'s)', async () => {
    const { id } = docs.FacturaCliente!;
    const format = await created(t, '/api/3/formatodocumento', { nombre: 'Proforma', titulo: 'Factura proforma', texto: 'Inscrita en el Registro Mercantil', autoaplicar: false });
    const text = (await pdfText((await download(t, `/api/3/exportarFacturaCliente/${id}?format=${format.id}`)).bytes)).text;
    assert.ok(text.includes('Factura proforma') && text.includes('Inscrita en el Registro Mercantil'));
    const plain = (await pdfText((await download(t, `/api/3/exportarFacturaCliente/${id}?format=0`)).bytes)).text;
    assert.ok(!plain.includes('Factura proforma'));

    const { fecha } = (await t.call('GET', `/api/3/facturacliente/${id}`)).body;
    const refund = await created(t, '/api/3/crearFacturaRectificativaCliente', { idfactura: id, fecha, codserie: 'R' }, 200);
    const refundPdf = (await pdfText((await download(t, `/api/3/exportarFacturaCliente/${refund.doc.idfactura}`)).bytes)).text;
    // The default data's format of serie R titles it; the rectified invoice is named.
    assert.ok(refundPdf.replace(/\s+/g, ' ').includes('Factura Rectificativa'), 'automatic format of serie R');
    assert.ok(refundPdf.includes(docs.FacturaCliente!.codigo), 'rectified invoice');
    const credit = await download(t, `/api/3/exportarFacturaCliente/${refund.doc.idfactura}?type=UBL&lang=en`);
    assert.equal(credit.status, 200);
    assert.ok(credit.bytes.toString().includes('<CreditNote'), 'a refund is a credit note');
    assert.match(String(credit.headers['content-disposition']), /filename="Credit_note_/);
  });

  it('prints the company logo from its attached file, and still prints when the file is gone', async () => {
    const png = tinyPng();
    const form = multipart({}, [{ field: 'file', name: 'logo.png', type: 'image/png', content: png }]);
    const upload = await t.request({ method: 'POST', url: '/api/3/attachedfiles', ...form });
    assert.equal(upload.statusCode, 201, upload.body);
    const file = upload.json();
    const without = await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}`);
    assert.equal((await t.call('PATCH', '/api/3/empresa/1', { idlogo: file.idfile })).status, 200);
    const withLogo = await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}`);
    assert.equal(withLogo.status, 200);
    assert.ok(withLogo.bytes.includes('/Subtype /Image') && !without.bytes.includes('/Subtype /Image'), 'the logo is an image of the PDF');
    // Bytes gone from under the record: the document still prints, without the logo.
    fs.rmSync(path.join(dataDir, file.path));
    const gone = await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}`);
    assert.equal(gone.status, 200);
    assert.ok(!gone.bytes.includes('/Subtype /Image'));
    assert.equal((await t.call('PATCH', '/api/3/empresa/1', { idlogo: null })).status, 200);
  });

  it('checks the access rules of each export endpoint on its own', async () => {
    const key = await created(t, '/api/3/apikey', { description: 'exports', fullaccess: false });
    await created(t, '/api/3/apiaccess', { idapikey: key.id, resource: 'exportarFacturaCliente', allowget: true, allowpost: false, allowput: false, allowdelete: false });
    assert.equal((await download(t, `/api/3/exportarFacturaCliente/${docs.FacturaCliente!.id}?type=CSV`, key.apikey)).status, 200);
    assert.equal((await download(t, `/api/3/exportarAlbaranCliente/${docs.AlbaranCliente!.id}?type=CSV`, key.apikey)).status, 403);
  });
});

forEachEngine('document export', (t) => {
  it('exports an invoice as PDF and CSV', async () => {
    await customerAndSupplier(t());
    const invoice = await created(t(), '/api/3/crearFacturaCliente', { codcliente: 'EXP', lineas: [{ descripcion: 'Engine check', cantidad: 2, pvpunitario: 1234.5 }] }, 200);
    const pdf = await download(t(), `/api/3/exportarFacturaCliente/${invoice.doc.codigo}`);
    assert.equal(pdf.status, 200);
    const { text } = await pdfText(pdf.bytes);
    assert.ok(text.includes('Engine check') && text.includes('2.987,49'), text.slice(0, 500));
    const csv = await download(t(), `/api/3/exportarFacturaCliente/${invoice.doc.idfactura}?type=CSV`);
    assert.ok(csv.bytes.toString().includes(';2987.49'));
  });
}, { engines: ['postgres', 'mysql'] });
