import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { addResourceRoute } from '../../http/resource-route.ts';
import type { Values } from '../../models/define-model.ts';
import { readInput } from '../../models/read-input.ts';
import type { AccessControl } from './access-control.ts';
import { apiAccessModel, apiKeyModel } from './auth-models.ts';

/** More rules than resources and endpoints exist is a mistake, not a grid. */
const MAX_RULES = 1000;
const FLAGS = ['allowget', 'allowpost', 'allowput', 'allowdelete'] as const;

/**
 * The items of a `rules` body, each an object naming its resource once, by its canonical name
 * (`clientes` is `cliente`, as the permission check reads it); else 422 naming the item.
 */
function readRules(body: unknown, canonical: (resource: string) => string): Array<Record<string, unknown> & { resource: string }> {
  const rules = (body as { rules?: unknown } | undefined)?.rules;
  if (rules === undefined || rules === null) throw validationError({ rules: 'required' });
  if (!Array.isArray(rules)) throw validationError({ rules: 'invalid-value' });
  if (rules.length > MAX_RULES) throw validationError({ rules: 'out-of-range' });
  const seen = new Set<string>();
  return rules.map((rule, index) => {
    if (!rule || typeof rule !== 'object' || Array.isArray(rule)) throw validationError({ [`rules.${index}`]: 'invalid-value' });
    const { resource, id, ...rest } = rule as Record<string, unknown>;
    // The list says what the rules are: which row holds one is the service's business.
    if (id !== undefined) throw validationError({ [`rules.${index}.id`]: 'read-only' });
    if (typeof resource !== 'string' || !resource.trim()) throw validationError({ [`rules.${index}.resource`]: 'required' });
    const name = canonical(resource.trim());
    if (seen.has(name)) throw validationError({ [`rules.${index}.resource`]: 'duplicate' });
    seen.add(name);
    return { ...rest, resource: name };
  });
}

/** The store's field errors of one rule, named after its place in the list. */
function underItem(error: unknown, index: number): unknown {
  if (!(error instanceof AppError) || error.code !== 'validation-failed') return error;
  const fields = (error.details?.fields ?? {}) as Record<string, string>;
  return validationError(Object.fromEntries(Object.entries(fields).map(([field, reason]) => [`rules.${index}.${field}`, reason])));
}

/**
 * `PUT /api/3/apikey/{id}/rules` `{"rules": [{"resource": "cliente", "allowget": true, ...}]}`:
 * the key's access rules become exactly this list (by canonical resource name), in one
 * transaction (the admin console's grid saves in one request). Rules are written through the
 * store, so each change is an `access.changed` event and every instance sees it at its next
 * refresh. A flag left out takes the rule's default (true), as on `POST /api/3/apiaccess`, whether
 * the rule is new or not. Answers the key's rules after the change. Needs what writing the rules
 * one by one would: `apiaccess` with PUT (the pipeline), POST and DELETE.
 */
export function registerKeyRules(app: FastifyInstance, ctx: AppContext, access: AccessControl): void {
  addResourceRoute(app, {
    resource: apiAccessModel.resource,
    urls: [`/api/3/${apiKeyModel.resource}/:id/rules`, `/api/3/${apiKeyModel.alias}/:id/rules`],
    methods: {
      PUT: {
        write: 'update',
        handler: async (request) => {
          for (const method of ['POST', 'DELETE']) if (!access.allows(request.caller!, apiAccessModel.resource, method)) throw new AppError('forbidden');
          const id = Number((request.params as { id: string }).id);
          if (!Number.isSafeInteger(id) || id < 1) throw new AppError('record-not-found');
          const canonical = (resource: string) => ctx.registry.canonical(resource);
          const rules = readRules(request.body, canonical);
          return inTransaction(ctx.database, async (trx) => {
            if (!(await ctx.store.get(apiKeyModel, id, trx, 'all', true))) throw new AppError('record-not-found');
            const existing = await trx.selectFrom(apiAccessModel.table).select(['id', 'resource']).where('idapikey', '=', id).orderBy('id').execute();
            // Rows by canonical name: a rule written under the alias is the same rule; a second row for one resource goes.
            const byResource = new Map<string, number>();
            const extra: number[] = [];
            for (const row of existing) {
              const name = canonical(String(row.resource));
              if (byResource.has(name)) extra.push(Number(row.id));
              else byResource.set(name, Number(row.id));
            }
            const wanted = new Set(rules.map((rule) => rule.resource));
            for (const [resource, ruleId] of byResource) if (!wanted.has(resource)) extra.push(ruleId);
            for (const ruleId of extra) await ctx.store.remove(apiAccessModel, ruleId, trx);
            const saved = [];
            for (const [index, rule] of rules.entries()) {
              const ruleId = byResource.get(rule.resource);
              try {
                // Read as a rule's body is on POST /api/3/apiaccess: typed, unknown fields refused.
                const values = readInput(apiAccessModel, { ...rule, idapikey: id }, 'json', 'create');
                for (const flag of FLAGS) values[flag] ??= apiAccessModel.fields[flag]!.default as Values[string];
                saved.push(ruleId === undefined ? (await ctx.store.create(apiAccessModel, values, trx)).record : await ctx.store.update(apiAccessModel, ruleId, values, trx));
              } catch (error) {
                throw underItem(error, index);
              }
            }
            return { ok: 'record-updated', data: saved };
          });
        },
      },
    },
  });
}
