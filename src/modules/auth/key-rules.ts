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

/** The items of a `rules` body, each an object naming its resource once; else 422 naming the item. */
function readRules(body: unknown): Array<Record<string, unknown>> {
  const rules = (body as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules)) throw validationError({ rules: 'required' });
  if (rules.length > MAX_RULES) throw validationError({ rules: 'out-of-range' });
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (!rule || typeof rule !== 'object' || Array.isArray(rule)) throw validationError({ [`rules.${index}`]: 'invalid-value' });
    const resource = (rule as Record<string, unknown>).resource;
    if (typeof resource !== 'string' || !resource.trim()) throw validationError({ [`rules.${index}.resource`]: 'required' });
    if (seen.has(resource)) throw validationError({ [`rules.${index}.resource`]: 'duplicate' });
    seen.add(resource);
  });
  return rules as Array<Record<string, unknown>>;
}

/** The store's field errors of one rule, named after its place in the list. */
function underItem(error: unknown, index: number): unknown {
  if (!(error instanceof AppError) || error.code !== 'validation-failed') return error;
  const fields = (error.details?.fields ?? {}) as Record<string, string>;
  return validationError(Object.fromEntries(Object.entries(fields).map(([field, reason]) => [`rules.${index}.${field}`, reason])));
}

/**
 * `PUT /api/3/apikey/{id}/rules` `{"rules": [{"resource": "cliente", "allowget": true, ...}]}`:
 * the key's access rules become exactly this list, in one transaction (the admin console's grid
 * saves in one request). Rules are written through the store, so each change is an
 * `access.changed` event and every instance sees it at its next refresh. A flag left out takes
 * the rule's default (true), as on `POST /api/3/apiaccess`, whether the rule is new or not. Answers the key's rules after the
 * change. Needs what writing the rules one by one would: `apiaccess` with PUT (the pipeline),
 * POST and DELETE.
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
          const rules = readRules(request.body);
          return inTransaction(ctx.database, async (trx) => {
            if (!(await ctx.store.get(apiKeyModel, id, trx, 'all', true))) throw new AppError('record-not-found');
            const existing = await trx.selectFrom(apiAccessModel.table).select(['id', 'resource']).where('idapikey', '=', id).execute();
            const byResource = new Map(existing.map((row) => [String(row.resource), Number(row.id)]));
            const wanted = new Set(rules.map((rule) => String(rule.resource)));
            for (const [resource, ruleId] of byResource) if (!wanted.has(resource)) await ctx.store.remove(apiAccessModel, ruleId, trx);
            const saved = [];
            for (const [index, rule] of rules.entries()) {
              const ruleId = byResource.get(String(rule.resource));
              try {
                // Read as a rule's body is on POST /api/3/apiaccess: typed, unknown fields refused.
                const values: Values = { ...readInput(apiAccessModel, { ...rule, idapikey: id }, 'json', 'create'), idapikey: id };
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
