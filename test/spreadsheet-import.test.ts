import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import ExcelJS from 'exceljs';
import { forEachEngine, multipart, type TestApp } from './helpers/test-app.ts';

/**
 * `POST /api/3/importar/{cliente|proveedor|producto|contacto}` (docs/migration.md, "Spreadsheets"):
 * CSV as the established system exports it, XLSX, JSON rows; all or nothing with every problem
 * named by row and column; dry runs; create, update or both by the record's key; the key's rules.
 */

type Answer = { status: number; body: any };

async function upload(t: TestApp, resource: string, name: string, content: Buffer | string, fields: Record<string, string> = {}, key?: string): Promise<Answer> {
  const type = name.endsWith('.xlsx') ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv';
  const response = await t.request({ method: 'POST', url: `/api/3/importar/${resource}`, ...multipart(fields, [{ field: 'file', name, type, content }]), ...(key ? { key } : {}) });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

const count = async (t: () => TestApp, resource: string) => Number((await t().call('GET', `/api/3/${resource}?limit=1`)).headers['x-total-count']);

async function xlsx(rows: unknown[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Productos');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

forEachEngine('spreadsheet import', (t) => {
  before(async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'OLD1', nombre: 'Antiguo', cifnif: '12345678Z' })).status, 201);
  });

  it('imports customers from a CSV as the established system exports it (BOM, ";", dd-mm-yyyy), reading past computed columns', async () => {
    const csv = '\ufeff"codcliente";"nombre";"cifnif";"email";"fechaalta";"riesgoalcanzado"\n"C100";"Ana López";"00000000T";"ana@example.com";"15-03-2024";"120.5"\n"C101";"Bernardo; y Cía";"X1234567L";"";"01-01-2025";"0"\n';
    const answer = await upload(t(), 'clientes', 'clientes.csv', csv);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { resource: 'cliente', modo: 'crear', dryrun: false, filas: 2, creados: 2, actualizados: 0, ignoradas: ['riesgoalcanzado'] });
    const ana = (await t().call('GET', '/api/3/cliente/C100')).body;
    assert.deepEqual([ana.nombre, ana.email, ana.fechaalta, ana.riesgoalcanzado], ['Ana López', 'ana@example.com', '2024-03-15', null], 'a new customer\'s risk is the service\'s, not the file\'s');
    assert.equal((await t().call('GET', '/api/3/cliente/C101')).body.nombre, 'Bernardo; y Cía', 'a quoted delimiter is text');
  });

  it('imports products from an XLSX by the established system\'s headers, and a dry run writes nothing', async () => {
    const file = await xlsx([['Referencia', 'Descripción', 'Precio', 'Impuesto'], ['SHEET-1', 'Tornillo', 0.15, 'IVA21'], ['SHEET-2', 'Tuerca', 0.1, 'IVA21']]);
    const before = await count(t, 'producto');
    const dry = await upload(t(), 'producto', 'productos.xlsx', file, { dryrun: '1' });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual([dry.body.dryrun, dry.body.creados], [true, 2]);
    assert.equal(await count(t, 'producto'), before, 'nothing written on a dry run');
    const real = await upload(t(), 'producto', 'productos.xlsx', file);
    assert.equal(real.status, 200, JSON.stringify(real.body));
    assert.equal(await count(t, 'producto'), before + 2);
    const screw = (await t().call('GET', '/api/3/producto?filter[referencia]=SHEET-1')).body[0];
    assert.deepEqual([screw.descripcion, screw.precio, screw.codimpuesto], ['Tornillo', 0.15, 'IVA21']);
  });

  it('refuses the whole file, naming every problem by row and column, and writes none of it', async () => {
    const before = await count(t, 'cliente');
    const csv = 'codcliente,nombre,cifnif,email,color\nC200,Bien,00000000T,,\nC201,Mal correo,00000000T,no-es-correo,\nC202,,00000000T,,\nOLD1,Repetido,00000000T,,\n';
    const answer = await upload(t(), 'cliente', 'clientes.csv', csv);
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.equal(answer.body.message, 'import-rows-refused');
    assert.deepEqual(answer.body.problemas, [
      { fila: 1, campo: 'color', error: 'unknown-field' },
      { fila: 3, campo: 'email', error: 'invalid-email' },
      { fila: 4, campo: 'nombre', error: 'required' },
      { fila: 5, campo: 'codcliente', error: 'already-exists' },
    ]);
    assert.equal(answer.body.filas, 4);
    assert.equal(await count(t, 'cliente'), before, 'not even the good row');
  });

  it('updates by the record\'s key (actualizar), or creates what is new (ambos); JSON rows alike', async () => {
    const update = await upload(t(), 'cliente', 'clientes.csv', 'codcliente;telefono1\nOLD1;600111222\nNOPE;600\n', { modo: 'actualizar' });
    assert.equal(update.status, 422);
    assert.deepEqual(update.body.problemas, [{ fila: 3, campo: 'codcliente', error: 'not-found' }]);
    assert.equal((await t().call('GET', '/api/3/cliente/OLD1')).body.telefono1, null, 'nothing of it');
    const both = await t().call('POST', '/api/3/importar/cliente?modo=ambos', [{ codcliente: 'OLD1', telefono1: '600111222' }, { codcliente: 'J1', nombre: 'Nuevo', cifnif: '00000000T' }]);
    assert.equal(both.status, 200, JSON.stringify(both.body));
    assert.deepEqual([both.body.creados, both.body.actualizados], [1, 1]);
    assert.equal((await t().call('GET', '/api/3/cliente/OLD1')).body.telefono1, '600111222');
    assert.equal((await t().call('GET', '/api/3/cliente/OLD1')).body.nombre, 'Antiguo', 'what the row did not name is kept');
    const bad = await t().call('POST', '/api/3/importar/cliente', { filas: [{ codcliente: 'J2', nombre: 'X', cifnif: '00000000T' }], modo: 'todo' });
    assert.deepEqual([bad.status, bad.body.fields?.modo, bad.body.accepted?.modo], [422, 'invalid-value', ['crear', 'actualizar', 'ambos']]);
    assert.equal((await t().call('POST', '/api/3/importar/factura', [])).status, 404);
    // A key that is no key for its column (a contact's number) is the row's problem, never a failed read.
    const contact = await t().call('POST', '/api/3/importar/contacto?modo=actualizar', [{ idcontacto: 'abc', nombre: 'X' }]);
    assert.deepEqual([contact.status, contact.body.problemas], [422, [{ fila: 1, campo: 'idcontacto', error: 'invalid-integer' }]], JSON.stringify(contact.body));
  });

  it('needs the key\'s rights on importar and on the resource itself, as the rows would use them', async () => {
    /** A key with rules on `importar` and `cliente`: the methods each allows. */
    const keyWith = async (rules: Record<string, string[]>) => {
      const created = await t().call('POST', '/api/3/apikey', { description: 'importer', fullaccess: false });
      for (const [resource, methods] of Object.entries(rules)) {
        const rule = await t().call('POST', '/api/3/apiaccess', { idapikey: created.body.id, resource, ...Object.fromEntries(['get', 'post', 'put', 'delete'].map((method) => [`allow${method}`, methods.includes(method)])) });
        assert.equal(rule.status, 201, JSON.stringify(rule.body));
      }
      return created.body.apikey as string;
    };
    const creating = 'codcliente;nombre;cifnif\nK1;Uno;00000000T\n';
    const renaming = 'codcliente;nombre\nK1;Dos\n';
    // The resource alone, or importar alone: refused.
    assert.equal((await upload(t(), 'cliente', 'c.csv', creating, {}, await keyWith({ cliente: ['get', 'post', 'put'] }))).status, 403, 'no rule on importar');
    assert.equal((await upload(t(), 'cliente', 'c.csv', creating, {}, await keyWith({ importar: ['post'] }))).status, 403, 'no rule on cliente');
    // Creating needs POST on it; updating PUT; either (ambos) both.
    const posting = await keyWith({ importar: ['post'], cliente: ['get', 'post'] });
    const created = await upload(t(), 'cliente', 'c.csv', creating, {}, posting);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal((await upload(t(), 'cliente', 'c.csv', renaming, { modo: 'actualizar' }, posting)).status, 403, 'actualizar needs PUT');
    assert.equal((await upload(t(), 'cliente', 'c.csv', renaming, { modo: 'ambos' }, posting)).status, 403, 'ambos may update: PUT is needed too');
    const putting = await keyWith({ importar: ['post'], cliente: ['get', 'put'] });
    assert.equal((await upload(t(), 'cliente', 'c.csv', creating.replace('K1', 'K2'), {}, putting)).status, 403, 'crear needs POST');
    const updated = await upload(t(), 'cliente', 'c.csv', renaming, { modo: 'actualizar' }, putting);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal((await t().call('GET', '/api/3/cliente/K1')).body.nombre, 'Dos');
  });

  it('keeps its answer under an Idempotency-Key: a retried upload is replayed, not imported twice', async () => {
    const body = multipart({}, [{ field: 'file', name: 'c.csv', type: 'text/csv', content: 'codcliente;nombre;cifnif\nIDEM1;Una vez;00000000T\n' }]);
    const send = () => t().request({ method: 'POST', url: '/api/3/importar/cliente', ...body, headers: { ...body.headers, 'idempotency-key': 'sheet-once' } });
    const first = await send();
    assert.equal(first.statusCode, 200, first.body);
    const again = await send();
    assert.deepEqual([again.statusCode, again.headers['idempotent-replayed'], JSON.parse(again.body).creados], [200, 'true', 1]);
    assert.equal((await t().call('GET', '/api/3/cliente?filter[codcliente]=IDEM1')).body.length, 1);
  });

  it('refuses a file of more than 100,000 rows before writing any', async () => {
    const before = await count(t, 'cliente');
    const lines = ['codcliente;nombre;cifnif', ...Array.from({ length: 100_001 }, (_, i) => `Z${i};Cliente ${i};00000000T`)].join('\n');
    const answer = await upload(t(), 'cliente', 'muchos.csv', lines);
    assert.deepEqual([answer.status, answer.body.fields?.file, answer.body.limit], [422, 'too-many-rows', 100_000]);
    assert.equal(await count(t, 'cliente'), before);
  });
}, { config: { uploadMaxFileBytes: 8_000_000, uploadMaxRequestBytes: 9_000_000 } });
