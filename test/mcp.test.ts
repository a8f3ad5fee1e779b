import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { FastifyRequest } from 'fastify';
import { mcpTools, registerTools } from '../src/modules/mcp/mcp-tools.ts';
import { forEachEngine, GLOBAL_KEY } from './helpers/test-app.ts';

/**
 * The MCP server (docs/mcp.md) on every engine, through the official SDK's client over HTTP:
 * initialize, list tools, create a customer and an invoice with lines, pay it; a validation error
 * as a tool error; a key's rules applied to every call; the tools built once per app, each request
 * registering only its key's, and concurrent calls of two keys each answered as its own key; a
 * wrong token banned as on REST.
 */
forEachEngine('MCP server', (t) => {
  let base = '';
  const clients: Client[] = [];
  before(async () => {
    await t().app.server.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t().app.server.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
  });
  const connect = async (key: string) => {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    clients.push(client);
    return client;
  };
  const body = (answer: any) => answer.structuredContent?.body;

  it('initializes, lists its tools, and runs the invoicing cycle: a customer, an invoice with lines, its payment', async () => {
    const client = await connect(GLOBAL_KEY);
    assert.equal(client.getServerVersion()?.name, 'invoicing-api');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.length <= 30, `few tools: ${names.length}`);
    for (const name of ['describe_resources', 'list_records', 'get_record', 'create_record', 'update_record', 'delete_record', 'create_document', 'pay_invoice', 'refund_invoice', 'trial_balance', 'vat_return', 'verifactu_status', 'export_document', 'send_document']) assert.ok(names.includes(name), name);
    assert.ok(tools.every((tool) => tool.description && tool.inputSchema.type === 'object'));

    const described = await client.callTool({ name: 'describe_resources', arguments: { resource: 'cliente' } });
    const fields = body(described).resources[0].fields.map((field: any) => field.name);
    assert.ok(fields.includes('codcliente') && fields.includes('nombre'));

    const customer = await client.callTool({ name: 'create_record', arguments: { resource: 'cliente', data: { codcliente: 'MCP1', nombre: 'Agente, S.L.', cifnif: 'B85626240' } } });
    assert.equal(customer.isError, false, JSON.stringify(customer));
    const invoice = await client.callTool({ name: 'create_document', arguments: { type: 'FacturaCliente', data: { codcliente: 'MCP1', lineas: [{ descripcion: 'Consultoría', cantidad: 2, pvpunitario: 50, codimpuesto: 'IVA21' }] } } });
    assert.equal(invoice.isError, false, JSON.stringify(invoice));
    const doc = body(invoice).doc;
    assert.equal(doc.total, 121);
    const paid = await client.callTool({ name: 'pay_invoice', arguments: { side: 'cliente', id: doc.idfactura, pagada: true } });
    assert.equal(body(paid).data.pagada, true, JSON.stringify(paid));
    const listed = await client.callTool({ name: 'list_records', arguments: { resource: 'facturacliente', filter: { codcliente: 'MCP1' }, expand: ['lineas'], fields: ['codigo', 'total', 'pagada'] } });
    assert.deepEqual(body(listed).map((row: any) => [row.total, row.pagada, row.lineas.length]), [[121, true, 1]]);
    // The API's own record, the same through REST.
    assert.equal((await t().call('GET', `/api/3/facturaclientes/${doc.idfactura}`)).body.pagada, true);
    // A partial refund: one of the two units of its line.
    const [line] = (await t().call('GET', `/api/3/lineafacturaclientes?filter[idfactura]=${doc.idfactura}`)).body;
    const refund = await client.callTool({ name: 'refund_invoice', arguments: { idfactura: doc.idfactura, fecha: doc.fecha, lineas: [{ idlinea: line.idlinea, cantidad: 1 }] } });
    assert.equal(refund.isError, false, JSON.stringify(refund));
    assert.equal(body(refund).doc.total, -60.5, 'one unit back, not the whole invoice');
  });

  it('exports an invoice as a link that opens without a key (with the PDF\'s text), e-mails it, and tells its VERI*FACTU state', async () => {
    const client = await connect(GLOBAL_KEY);
    const created = await client.callTool({ name: 'create_document', arguments: { type: 'FacturaCliente', data: { codcliente: 'MCP1', lineas: [{ descripcion: 'Auditoría anual', cantidad: 1, pvpunitario: 300, codimpuesto: 'IVA21' }] } } });
    const doc = body(created).doc;
    const exported = await client.callTool({ name: 'export_document', arguments: { type: 'FacturaCliente', id: doc.idfactura } });
    assert.equal(exported.isError, false, JSON.stringify(exported));
    const { link, contentType, text } = body(exported);
    assert.equal(contentType, 'application/pdf');
    assert.ok(text.includes(doc.codigo) && text.includes('Auditoría anual'), text);
    assert.ok(link.startsWith(`${base}/Exports/FacturaCliente/`), link);
    const fetched = await fetch(link);
    assert.equal(fetched.status, 200);
    assert.equal(fetched.headers.get('content-type'), 'application/pdf');
    assert.equal(Buffer.from(await fetched.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
    // The signature is the document's: another document, or a changed token, is refused.
    assert.equal((await fetch(link.replace(`/FacturaCliente/${doc.idfactura}?`, `/FacturaCliente/${doc.idfactura - 1}?`))).status, 403);
    assert.equal((await fetch(link.replace(/myft=[^&]+/, 'myft=p.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'))).status, 403);
    const csv = body(await client.callTool({ name: 'export_document', arguments: { type: 'FacturaCliente', id: doc.idfactura, format: 'CSV' } }));
    assert.ok(csv.text.includes('Auditoría anual') && /type=CSV/.test(csv.link));

    assert.equal((await t().call('POST', '/api/3/settings', { name: 'email', properties: { mailer: 'smtp', host: '127.0.0.1', port: 2525, email: 'facturas@acme.example' } })).status < 300, true);
    const sent = await client.callTool({ name: 'send_document', arguments: { type: 'FacturaCliente', id: doc.idfactura, to: ['cliente@agente.example'] } });
    assert.equal(sent.isError, false, JSON.stringify(sent));
    assert.deepEqual([(sent.structuredContent as any).status, body(sent).estado], [202, 'pendiente']);
    const records = await client.callTool({ name: 'verifactu_status', arguments: { idfactura: doc.idfactura } });
    assert.equal(records.isError, false, JSON.stringify(records));
    const stored = (await t().call('GET', `/api/3/registroverifactu?filter[idfactura]=${doc.idfactura}`)).body;
    assert.deepEqual(body(records), stored, 'the invoice\'s own records, as REST lists them');
    assert.ok(body(records).every((record: any) => record.idfactura === doc.idfactura));
    const state = await client.callTool({ name: 'verifactu_status', arguments: {} });
    assert.deepEqual([state.isError, body(state).fields?.idempresa], [true, 'required']);
  });

  it('answers a refusal as a tool error carrying the API\'s code and fields, never a protocol failure', async () => {
    const client = await connect(GLOBAL_KEY);
    const refused = await client.callTool({ name: 'create_record', arguments: { resource: 'cliente', data: { codcliente: 'MCP1', nombre: 'Otra vez' } } });
    assert.equal(refused.isError, true);
    assert.deepEqual([(refused.structuredContent as any).status, body(refused).message], [409, 'duplicate-record'], JSON.stringify(refused));
    const invalid = await client.callTool({ name: 'create_record', arguments: { resource: 'formapago', data: { codpago: 'X1', descripcion: 'x', plazovencimiento: 'pronto' } } });
    assert.equal(invalid.isError, true);
    assert.equal(body(invalid).message, 'validation-failed');
    assert.ok(body(invalid).fields.plazovencimiento, JSON.stringify(body(invalid)));
  });

  it('lets a restricted key see only its resources and refuses what its rules forbid, call by call', async () => {
    const key = (await t().call('POST', '/api/3/apikey', { description: 'agente de clientes', fullaccess: false, enabled: true })).body;
    assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource: 'cliente', allowget: true, allowpost: false, allowput: false, allowdelete: false })).status, 201);
    const client = await connect(key.apikey);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['describe_resources', 'get_record', 'list_records'], 'a restricted key sees only the tools its rules allow');
    const withheld = await client.callTool({ name: 'create_document', arguments: { type: 'FacturaCliente', data: { codcliente: 'MCP1', lineas: [] } } });
    assert.equal(withheld.isError, true);
    assert.match(JSON.stringify(withheld.content), /not found/);
    const resources = body(await client.callTool({ name: 'describe_resources', arguments: {} })).resources.map((row: any) => row.resource);
    assert.deepEqual(resources, ['cliente'], 'a restricted key sees fewer resources');
    assert.equal((await client.callTool({ name: 'get_record', arguments: { resource: 'cliente', id: 'MCP1' } })).isError, false);
    const write = await client.callTool({ name: 'create_record', arguments: { resource: 'cliente', data: { codcliente: 'MCP2', nombre: 'No' } } });
    assert.equal(write.isError, true, 'a tool the key may not use is not there to call');
    assert.match(JSON.stringify(write.content), /not found/);
    // A listed tool's call is checked again: another resource is refused by the API itself.
    const invoices = await client.callTool({ name: 'list_records', arguments: { resource: 'facturacliente' } });
    assert.deepEqual([invoices.isError, (invoices.structuredContent as any).status], [true, 403]);
  });

  it('builds the tools once per app and registers on each request\'s server only those its key is offered, never one to remove', async () => {
    const { ctx } = t().app;
    const tools = mcpTools(ctx);
    assert.equal(mcpTools(ctx), tools, 'the same definitions for every request');
    // What the SDK would be given, on a server that fails if a tool is removed or disabled.
    const registered = (mayUse: FastifyRequest['mayUse']) => {
      const calls: Array<{ name: string; config: unknown }> = [];
      const fail = () => assert.fail('a tool registered, then taken back');
      const server = { registerTool: (name: string, config: unknown) => (calls.push({ name, config }), { remove: fail, disable: fail, update: fail }) };
      registerTools(server as unknown as McpServer, ctx, t().app.server, { headers: {}, ip: '127.0.0.1', mayUse } as FastifyRequest);
      return calls;
    };
    const all = registered(undefined);
    assert.deepEqual(all.map((call) => call.name), tools.map((tool) => tool.name), 'the global key: every tool, in order');
    assert.ok(all.every((call, index) => call.config === tools[index]!.config), 'schemas and descriptions are the definitions\' own, not made again');
    // As the access control answers: the root ('') is every key's.
    const readsCustomers = registered((resource, method) => resource === '' || (resource === 'cliente' && method === 'GET'));
    assert.deepEqual(readsCustomers.map((call) => call.name), ['describe_resources', 'list_records', 'get_record']);
    const exportsOnly = registered((resource, method) => resource === '' || (resource === 'exportarFacturaCliente' && method === 'GET'));
    assert.deepEqual(exportsOnly.map((call) => call.name), ['describe_resources', 'export_document']);
    assert.equal(mcpTools(ctx), tools, 'requests in between built nothing new');
  });

  it('answers each key\'s calls as that key, with two keys\' requests at once', async () => {
    const keyWith = async (description: string, rules: Array<Record<string, unknown>>) => {
      const key = (await t().call('POST', '/api/3/apikey', { description, fullaccess: false, enabled: true })).body;
      for (const rule of rules) assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, allowget: false, allowpost: false, allowput: false, allowdelete: false, ...rule })).status, 201);
      return connect(key.apikey);
    };
    const customers = await keyWith('lee clientes', [{ resource: 'cliente', allowget: true }]);
    const suppliers = await keyWith('lee y crea proveedores', [{ resource: 'proveedor', allowget: true, allowpost: true }]);
    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
    const [customerTools, supplierTools] = await Promise.all([names(customers), names(suppliers)]);
    assert.deepEqual(customerTools, ['describe_resources', 'get_record', 'list_records']);
    assert.deepEqual(supplierTools, ['create_record', 'describe_resources', 'get_record', 'list_records'], 'another key, other tools');
    assert.deepEqual(await names(customers), customerTools, 'the first key\'s list again, after the other key\'s request');

    // Interleaved: every call answers as its own key (its resources, its rules), never the other's.
    const described = async (client: Client) => body(await client.callTool({ name: 'describe_resources', arguments: {} })).resources.map((row: any) => row.resource);
    const status = async (client: Client, resource: string) => ((await client.callTool({ name: 'list_records', arguments: { resource, limit: 1 } })).structuredContent as any).status;
    const rounds = await Promise.all(Array.from({ length: 4 }, () => Promise.all([
      described(customers), described(suppliers), status(customers, 'cliente'), status(suppliers, 'cliente'), status(customers, 'proveedor'), status(suppliers, 'proveedor'),
    ])));
    for (const round of rounds) assert.deepEqual(round, [['cliente'], ['proveedor'], 200, 403, 403, 200]);
    const written = await suppliers.callTool({ name: 'create_record', arguments: { resource: 'proveedor', data: { codproveedor: 'MCPP1', nombre: 'Proveedor, S.L.', cifnif: 'B85626240' } } });
    assert.equal(written.isError, false, JSON.stringify(written));
    const refused = await customers.callTool({ name: 'create_record', arguments: { resource: 'cliente', data: { codcliente: 'MCP3', nombre: 'No' } } });
    assert.match(JSON.stringify(refused.content), /not found/, 'the tool another key was offered is not this key\'s');
  });

  it('answers with the API\'s own headers (CORS, request id)', async () => {
    const answer = await fetch(`${base}/mcp`, {
      method: 'POST', headers: { Authorization: `Bearer ${GLOBAL_KEY}`, Origin: 'https://agent.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    assert.ok(answer.headers.get('x-request-id'));
  });

  it('refuses a wrong token, and bans its address after five failures as the REST API does', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await fetch(`${base}/mcp`, {
        method: 'POST', headers: { Authorization: 'Bearer wrong-token', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
      statuses.push(answer.status);
    }
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.equal(statuses[5], 429, 'banned');
  });
});
