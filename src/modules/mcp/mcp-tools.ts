import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { injectAs } from '../../http/inject-as.ts';
import type { Model } from '../../models/define-model.ts';
import { documentTools } from './document-tools.ts';
import { toolNeeds, type MayUse } from './tool-access.ts';
import type { CallContext, DefineTool, ToolDefinition } from './tool-definition.ts';
import { DOCUMENTS, idempotencyHeader, result, writeHint } from './tool-results.ts';

type Json = Record<string, unknown>;

const query = (params: Json): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) search.set(name, value.join(','));
    else if (typeof value === 'object') for (const [key, inner] of Object.entries(value as Json)) search.set(`${name}[${key}]`, String(inner));
    else search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** Calls the API as the caller's key: its status and body. */
const api = async (call: CallContext, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
  const answer = await call.inject({ method, url, body, headers });
  return { status: answer.status, body: answer.body };
};

const path = (resource: string, id?: string | number) => `/api/3/${encodeURIComponent(resource)}${id === undefined ? '' : `/${encodeURIComponent(String(id))}`}`;

/** A model's fields as an agent needs them: name, type, whether required, allowed values. */
function fieldsOf(model: Model): Json[] {
  return model.visibleFields.map((name) => {
    const field = model.fields[name]!;
    return {
      name, type: field.type, ...(field.length ? { length: field.length } : {}),
      ...(!field.nullable && field.default === undefined && !field.initial && !field.generatedCode && !field.derivedCode && field.type !== 'serial' ? { required: true } : {}),
      ...(field.values ? { values: [...field.values] } : {}), ...(field.readOnly ? { readOnly: true } : {}),
    };
  });
}

/** Each app's tool definitions, built on its first `/mcp` request (mcpTools). */
const definitions = new WeakMap<AppContext, readonly ToolDefinition[]>();

/**
 * The tools of this app, built on its first `/mcp` request (when this module is first imported)
 * and the same object for every request after: names, descriptions, zod input schemas, the
 * endpoints each needs and what each call does. Nothing in them belongs to a request: each call
 * gets its request's CallContext. What they are built from is complete before the app answers its
 * first request and does not change after: the model registry (plugins add their models before the
 * start) and the custom resources (added while routes are registered; switching a plugin on or off
 * changes only whether its endpoints answer, which the API decides call by call), so whether
 * `send_document` exists is decided here, once.
 */
export function mcpTools(ctx: AppContext): readonly ToolDefinition[] {
  let tools = definitions.get(ctx);
  if (!tools) definitions.set(ctx, (tools = Object.freeze(defineTools(ctx))));
  return tools;
}

/**
 * Registers on a request's server only the tools its key is offered: those whose endpoints its
 * rules allow at least one of (tool-access.ts; a few microseconds even for a restricted key, so not
 * cached per rule set); each call runs with this request's context (its key, address, host), never
 * another's. The key's `describe_resources` lists only the resources it may read; every call is
 * checked again by the API.
 */
export function registerTools(server: McpServer, ctx: AppContext, app: FastifyInstance, request: FastifyRequest): void {
  const may: MayUse = (resource, method) => !request.mayUse || request.mayUse(resource, method);
  const call: CallContext = { inject: injectAs(app, request), request, may };
  for (const tool of mcpTools(ctx)) {
    if (tool.needs.some(([resource, method]) => may(resource, method))) server.registerTool(tool.name, tool.config, (args) => tool.run(args, call));
  }
}

/**
 * The tools (docs/mcp.md): few, whatever the number of models: discover the resources and their
 * fields, list/get/create/update/delete any record, and the business operations as typed tools.
 */
function defineTools(ctx: AppContext): ToolDefinition[] {
  const resources = ctx.registry.resources();
  const needs = toolNeeds(resources);
  const tool: DefineTool = (name, { description, inputSchema }, run) => ({
    name, config: { description, inputSchema: z.object(inputSchema) }, needs: needs[name] ?? [], run: run as ToolDefinition['run'],
  });
  const listing = {
    resource: z.string().describe('A resource name from describe_resources (e.g. cliente, facturacliente)'),
    filter: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('field or field_op (gt, gte, lt, lte, neq, like, null, notnull) -> value'),
    sort: z.record(z.string(), z.enum(['ASC', 'DESC'])).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    offset: z.number().int().min(0).optional(),
    fields: z.array(z.string()).optional().describe('Only these fields'),
    expand: z.array(z.enum(['lineas', 'cliente', 'proveedor'])).optional().describe('Documents: embed their lines, customer or supplier'),
  };

  return [
    tool('describe_resources', {
      description: 'The resources this key may read, each with its fields (name, type, required, allowed values) and whether the resource takes writes at all (the key\'s rules decide each call). Call this first.',
      inputSchema: { resource: z.string().optional().describe('Only this resource, with its fields') },
    }, async ({ resource }, call) => {
      // A request of its own too (the root's): counted by the rate limit as every other tool call.
      const root = await api(call, 'GET', '/api/3');
      if (root.status >= 400) return result(root);
      const listed = new Set((root.body as { resources?: string[] }).resources ?? []);
      // The resources this key may read (and the root lists: not those a plugin switched off).
      const shown = resources.filter((model) => call.may(model.resource, 'GET') && listed.has(model.resource));
      const chosen = resource ? shown.filter((model) => model.resource === resource || model.alias === resource) : shown;
      if (resource && !chosen.length) return result({ status: 404, body: { status: 'error', message: 'record-not-found', resource } });
      return result({ status: 200, body: { resources: chosen.map((model) => ({ resource: model.resource, key: model.primaryKey, writable: !model.readOnlyResource, ...(resource ? { fields: fieldsOf(model) } : {}) })) } });
    }),

    tool('list_records', { description: 'A page of a resource\'s records, filtered and sorted (docs/query-syntax.md).', inputSchema: listing }, async ({ resource, ...params }, call) =>
      result(await api(call, 'GET', `${path(resource)}${query(params)}`))),
    tool('get_record', {
      description: 'One record by its key.',
      inputSchema: { resource: z.string(), id: z.union([z.string(), z.number()]), fields: z.array(z.string()).optional(), expand: z.array(z.enum(['lineas', 'cliente', 'proveedor'])).optional() },
    }, async ({ resource, id, ...params }, call) => result(await api(call, 'GET', `${path(resource, id)}${query(params)}`))),
    tool('create_record', {
      description: 'Creates a record of a resource (documents: use create_document, which computes lines and totals).',
      inputSchema: { resource: z.string(), data: z.record(z.string(), z.unknown()).describe('Field -> value, as describe_resources lists them'), ...writeHint },
    }, async ({ resource, data, idempotencyKey }, call) => result(await api(call, 'POST', path(resource), data, idempotencyHeader(idempotencyKey)))),
    tool('update_record', {
      description: 'Changes the given fields of a record.',
      inputSchema: { resource: z.string(), id: z.union([z.string(), z.number()]), data: z.record(z.string(), z.unknown()), ...writeHint },
    }, async ({ resource, id, data, idempotencyKey }, call) => result(await api(call, 'PATCH', path(resource, id), data, idempotencyHeader(idempotencyKey)))),
    tool('delete_record', {
      description: 'Deletes a record.',
      inputSchema: { resource: z.string(), id: z.union([z.string(), z.number()]) },
    }, async ({ resource, id }, call) => result(await api(call, 'DELETE', path(resource, id)))),

    tool('create_document', {
      description: 'Creates a quote, order, delivery note or invoice with its lines; the API computes prices, taxes, totals, receipts and entries.',
      inputSchema: {
        type: z.enum(DOCUMENTS),
        data: z.object({
          codcliente: z.string().optional(), codproveedor: z.string().optional(), fecha: z.string().optional(), codpago: z.string().optional(), codserie: z.string().optional(),
          lineas: z.array(z.object({ referencia: z.string().optional(), descripcion: z.string().optional(), cantidad: z.number().optional(), pvpunitario: z.number().optional(), codimpuesto: z.string().optional(), dtopor: z.number().optional() }).passthrough()),
        }).passthrough(),
        ...writeHint,
      },
    }, async ({ type, data, idempotencyKey }, call) => result(await api(call, 'POST', `/api/3/crear${type}`, data, idempotencyHeader(idempotencyKey)))),
    tool('pay_invoice', {
      description: 'Marks every receipt of an invoice paid (or unpaid), with its payment entries.',
      inputSchema: { side: z.enum(['cliente', 'proveedor']), id: z.number().int(), pagada: z.boolean(), fechapago: z.string().optional(), codpago: z.string().optional(), ...writeHint },
    }, async ({ side, id, idempotencyKey, ...body }, call) =>
      result(await api(call, 'POST', `/api/3/pagarFactura${side === 'cliente' ? 'Cliente' : 'Proveedor'}/${id}`, body, idempotencyHeader(idempotencyKey)))),
    tool('refund_invoice', {
      description: 'Creates the rectifying invoice of a customer invoice: every line in full, or only the quantities given in `lineas`.',
      inputSchema: {
        idfactura: z.number().int(), fecha: z.string(), observaciones: z.string().optional(),
        lineas: z.array(z.object({ idlinea: z.number().int(), cantidad: z.number().positive() })).optional().describe('Only these lines, these quantities (the original lines\' idlinea)'),
        ...writeHint,
      },
    }, async ({ idempotencyKey, lineas, ...body }, call) => {
      const quantities = Object.fromEntries((lineas ?? []).map((line) => [`refund_${line.idlinea}`, line.cantidad]));
      return result(await api(call, 'POST', '/api/3/crearFacturaRectificativaCliente', { ...body, ...quantities }, idempotencyHeader(idempotencyKey)));
    }),
    tool('trial_balance', {
      description: 'The trial balance of a fiscal year (sums and balances per sub-account).',
      inputSchema: { codejercicio: z.string(), desde: z.string().optional(), hasta: z.string().optional() },
    }, async (params, call) => result(await api(call, 'GET', `/api/3/balanceSumasSaldos${query(params)}`))),
    tool('vat_return', {
      description: 'The VAT return (Modelo 303) of a quarter (1T-4T) or month (01-12): every box.',
      inputSchema: { codejercicio: z.string(), periodo: z.string(), idempresa: z.number().int().optional() },
    }, async (params, call) => result(await api(call, 'GET', `/api/3/modelo303${query(params)}`))),
    tool('verifactu_status', {
      description: 'VERI*FACTU: how a company\'s invoice records stand with the tax agency (counts per state, next sending, records to correct); with `idfactura`, that invoice\'s records.',
      inputSchema: { idempresa: z.number().int().optional().describe('The company (required without idfactura)'), idfactura: z.number().int().optional() },
    }, async ({ idempresa, idfactura }, call) => result(idfactura === undefined
      ? await api(call, 'GET', `/api/3/verifactuEstado${query({ idempresa })}`)
      : await api(call, 'GET', `/api/3/registroverifactu${query({ filter: { idfactura }, sort: { id: 'ASC' } })}`))),
    ...documentTools(ctx, tool),
  ];
}
