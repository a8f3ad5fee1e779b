import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { coreModules } from '../src/modules/index.ts';
import type { Values } from '../src/models/define-model.ts';
import { buildRecord, createRecord, UPDATED_TEXT, updatableField, type Fix } from './helpers/record-factory.ts';
import { forEachEngine } from './helpers/test-app.ts';

/** Values that a model's own rules pin down (enumerations); everything else comes from the declarations. */
let subaccounts = 0;
const FIXES: Record<string, Fix> = {
  // file names are stored lower-cased (reference AttachedFile); the rest comes from the upload
  attachedfiles: { filename: 'report.png' },
  // a fiscal year may not overlap another of its company (the default data has the current one)
  ejercicio: { fechainicio: '1990-01-01', fechafin: '1990-12-31' },
  // the reference requires these texts although their columns are nullable
  asiento: { concepto: 'Sample entry' },
  cuenta: { descripcion: 'Sample account' },
  partida: { concepto: 'Sample line' },
  // a sub-account code is digits, as long as its year's longsubcuenta (10 by default), and the
  // account code is its account's
  async subcuenta(record, t) {
    const account = await t.call('GET', `/api/3/cuenta/${record.idcuenta}`);
    return { ...record, codcuenta: account.body.codcuenta, codsubcuenta: String(4_300_000_000 + ++subaccounts) };
  },
};
// A line without a tax code carries no tax (reference BusinessDocumentLine); a document needs its
// customer or supplier (created in `before`).
const coreModels = () => coreModules().flatMap((module) => module.models ?? []);
for (const model of coreModels()) {
  if (model.table.startsWith('lineas')) FIXES[model.resource] = { iva: 0, recargo: 0, codimpuesto: null };
  else if (model.fields.codcliente && model.fields.nombrecliente) FIXES[model.resource] = { codcliente: 'CUST' };
  else if (model.fields.codproveedor && model.fields.numproveedor) FIXES[model.resource] = { codproveedor: 'SUPP' };
}
// A remittance gathers receipts: a collecting account, a direct-debit method, a customer's mandate
// and an invoice of that method (its receipt, due today, collected in 2099).
let remittances = 0;
FIXES.remesasepa = async (record, t) => {
  const n = ++remittances;
  const calls: Array<[string, string, Record<string, unknown>]> = [
    ['PATCH', 'empresa/1', { cifnif: 'B85626240' }],
    ['POST', 'cuentabanco', { codcuenta: `RB${n}`, descripcion: 'Cobros', iban: 'ES9121000418450200051332', idempresa: 1 }],
    ['POST', 'formapago', { codpago: `RD${n}`, descripcion: 'Domiciliación', domiciliado: true, codcuentabanco: `RB${n}` }],
    ['POST', 'cuentabancocliente', { codcliente: 'CUST', iban: 'ES7921000813610123456789', mandato: `M-${n}`, fmandato: '2025-01-01' }],
    ['POST', 'crearFacturaCliente', { codcliente: 'CUST', codpago: `RD${n}`, lineas: [{ descripcion: 'Cuota', cantidad: 1, pvpunitario: 10 }] }],
  ];
  for (const [method, url, body] of calls) assert.ok((await t.call(method, `/api/3/${url}`, body)).status < 300, `${method} ${url}`);
  return { ...record, codcuenta: `RB${n}`, fechacargo: '2099-12-31' };
};
// A receipt is in one remittance at most: a fresh one for the service's own row.
FIXES.reciboremesa = async (record, t) => {
  assert.equal((await t.call('POST', '/api/3/crearFacturaCliente', { codcliente: 'CUST', lineas: [{ descripcion: 'Cuota', cantidad: 1, pvpunitario: 10 }] })).status, 200);
  const [receipt] = (await t.call('GET', '/api/3/recibocliente?sort[idrecibo]=DESC&limit=1')).body;
  return { ...record, idrecibo: receipt.idrecibo };
};
// A transfer order gathers supplier receipts: the paying account and a supplier's bank account.
let transfers = 0;
FIXES.transferenciasepa = async (record, t) => {
  const n = ++transfers;
  const calls: Array<[string, string, Record<string, unknown>]> = [
    ['POST', 'cuentabanco', { codcuenta: `TB${n}`, descripcion: 'Pagos', iban: 'ES9121000418450200051332', idempresa: 1 }],
    ['POST', 'cuentabancoproveedor', { codproveedor: 'SUPP', iban: 'ES7921000813610123456789' }],
    ['POST', 'crearFacturaProveedor', { codproveedor: 'SUPP', lineas: [{ descripcion: 'Material', cantidad: 1, pvpunitario: 10 }] }],
  ];
  for (const [method, url, body] of calls) assert.ok((await t.call(method, `/api/3/${url}`, body)).status < 300, `${method} ${url}`);
  return { ...record, codcuenta: `TB${n}`, fechaejecucion: '2099-12-31' };
};
FIXES.pagotransferencia = async (record, t) => {
  assert.equal((await t.call('POST', '/api/3/crearFacturaProveedor', { codproveedor: 'SUPP', lineas: [{ descripcion: 'Material', cantidad: 1, pvpunitario: 10 }] })).status, 200);
  const [receipt] = (await t.call('GET', '/api/3/reciboproveedor?sort[idrecibo]=DESC&limit=1')).body;
  return { ...record, idrecibo: receipt.idrecibo };
};
/** What a creation answers beside the record (a remittance or transfer order: its receipts and the ones it left out). */
const CREATION_EXTRAS: Record<string, string[]> = { remesasepa: ['recibos', 'excluidos'], transferenciasepa: ['recibos', 'excluidos'] };
// A recurring invoice's line without a product needs its text and price.
FIXES.lineafacturarecurrente = { codimpuesto: null, referencia: null, descripcion: 'Monthly fee', pvpunitario: 10 };

const resources = coreModels().filter((model) => !model.internal);

forEachEngine('every model: create, get, list with filter, update, delete', (t) => {
  before(async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'CUST', nombre: 'Generic customer' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/proveedor', { codproveedor: 'SUPP', nombre: 'Generic supplier', cifnif: 'B1' })).status, 201);
  });

  it('lists every model at the root and answers its schema', async () => {
    const root = await t().call('GET', '/api/3/');
    for (const model of resources) {
      assert.ok(root.body.resources.includes(model.resource), model.resource);
      const schema = await t().call('GET', `/api/3/${model.alias}/schema`);
      assert.equal(schema.status, 200, model.resource);
      assert.deepEqual(Object.keys(schema.body), model.visibleFields, model.resource);
    }
  });

  for (const model of resources) {
    it(`${model.resource} (${model.table})`, async () => {
      const url = `/api/3/${model.resource}`;
      const input = await buildRecord(t(), model, FIXES);
      if (model.readOnlyResource) {
        // Written by the service only: the API refuses writes and still reads what the service wrote.
        assert.equal((await t().call('POST', url, input)).status, 405);
        const { record } = await t().app.ctx.store.create(model, input as Values);
        const id = encodeURIComponent(String(record[model.primaryKey]));
        assert.deepEqual((await t().call('GET', `${url}/${id}`)).body, record);
        for (const method of ['PUT', 'PATCH', 'DELETE']) assert.equal((await t().call(method, `${url}/${id}`, method === 'DELETE' ? undefined : {})).status, 405);
        return;
      }
      const created = await createRecord(t(), model, input);
      assert.equal(created.status, 201, `create ${model.resource}: ${JSON.stringify(created.body)} from ${JSON.stringify(input)}`);
      for (const [name, value] of Object.entries(input)) {
        if (!model.hidden.has(name)) assert.deepEqual(created.body[name], value, `${model.resource}.${name}`);
      }
      const id = created.body[model.primaryKey];
      assert.notEqual(id, undefined);
      const path = `${url}/${encodeURIComponent(String(id))}`;

      // Hidden values (a key's token) appear in the creation response only.
      for (const name of model.hidden) delete created.body[name];
      for (const name of CREATION_EXTRAS[model.resource] ?? []) {
        assert.ok(name in created.body, `${model.resource} answers ${name} on creation`);
        delete created.body[name];
      }
      const fetched = await t().call('GET', path);
      assert.equal(fetched.status, 200);
      assert.deepEqual(fetched.body, created.body);

      const listed = await t().call('GET', `/api/3/${model.alias}?filter[${model.primaryKey}]=${encodeURIComponent(String(id))}`);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body, [created.body]);
      assert.equal(listed.headers['x-total-count'], '1');

      const field = updatableField(model);
      if (field) {
        const updated = await t().call('PATCH', path, { [field]: UPDATED_TEXT });
        assert.equal(updated.status, 200, `update ${model.resource}.${field}: ${JSON.stringify(updated.body)}`);
        assert.equal(updated.body[field], UPDATED_TEXT);
        assert.equal((await t().call('GET', path)).body[field], UPDATED_TEXT);
      }

      const deleted = await t().call('DELETE', path);
      assert.equal(deleted.status, 200, `delete ${model.resource}: ${JSON.stringify(deleted.body)}`);
      assert.equal((await t().call('GET', path)).status, 404);
    });
  }
});
