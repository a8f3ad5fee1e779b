import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import pLimit from 'p-limit';
import type { AppContext } from '../../app-context.ts';
import { markWritten } from '../../db/idempotency-keys.ts';
import { inOneTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { retryableAnswer } from '../../http/idempotency.ts';
import { injectAs, type InnerAnswer } from '../../http/inject-as.ts';
import { addResourceRoute, type Handler } from '../../http/resource-route.ts';
import { MAX_OPERATIONS, readBatchRequest, type BatchOperation } from './batch-request.ts';

/** How many atomic batches run at once in an instance; the others wait their turn. */
const ATOMIC_AT_ONCE = 2;
/** How many may wait for a turn; past that, 503 `database-busy` with Retry-After. */
const ATOMIC_QUEUE = 20;

/** One operation's answer in the batch's: its status, the headers worth keeping, its body (bytes that are not text as base64). */
interface OperationResult {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  bodyBase64?: string;
}

function resultOf(answer: InnerAnswer): OperationResult {
  const { 'content-type': type, ...headers } = answer.headers;
  if (answer.body !== undefined || !answer.bytes.length) return { status: answer.status, headers, ...(answer.body === undefined ? {} : { body: answer.body }) };
  return { status: answer.status, headers: { ...headers, ...(type ? { 'content-type': type } : {}) }, bodyBase64: answer.bytes.toString('base64') };
}

/** Thrown inside an atomic batch's transaction to roll it back at its first failed operation. */
class FailedOperation extends Error {
  readonly index: number;
  readonly results: OperationResult[];
  constructor(index: number, results: OperationResult[]) {
    super('batch operation failed');
    this.index = index;
    this.results = results;
  }
}

/** Set while a batch's operations run: a batch reached from inside one (however its path was spelt) is refused. */
const insideBatch = new AsyncLocalStorage<true>();

/**
 * Answers of a failed operation that may pass on a retry: the atomic batch is then refused as
 * 503 `batch-interrupted`, which no Idempotency-Key keeps, rather than as a kept 422.
 */
function transient(result: OperationResult): boolean {
  const body = result.body as { message?: unknown; reason?: unknown } | undefined;
  // An answer lost after its write committed never comes back: retrying does not help.
  return retryableAnswer(result.status) || (body?.message === 'idempotency-key-in-use' && body.reason !== 'answer-lost');
}

/**
 * Runs the operations in order, each as a request of its own by the caller's key (inject-as.ts):
 * rules, validation, idempotency keys and the rate limit apply to each.
 */
async function runOperations(app: FastifyInstance, request: FastifyRequest, operations: BatchOperation[], stopAtFailure: boolean): Promise<OperationResult[]> {
  const inject = injectAs(app, request);
  const results: OperationResult[] = [];
  await insideBatch.run(true, async () => {
    for (const [index, operation] of operations.entries()) {
      const answer = await inject({ method: operation.method, url: operation.path, body: operation.body, headers: operation.headers });
      results.push(resultOf(answer));
      if (stopAtFailure && answer.status >= 400) throw new FailedOperation(index, results);
    }
  });
  return results;
}

/**
 * `POST /api/3/batch` (docs/batches.md): up to 100 operations, answered in order. Not atomic: each
 * stands alone, whatever the others answer. Atomic: all run in one transaction (pinned-transaction.ts),
 * every read seeing the batch's own writes; the first failure rolls everything back and the batch
 * answers 422 `batch-rolled-back` naming it. The batch's own `Idempotency-Key` keeps its whole
 * answer; once its operations may have written, the key is marked written (in the batch's
 * transaction when atomic), so that a batch whose answer was lost is never run twice.
 */
export function registerBatchRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('batch');
  // Atomic batches each hold a connection (SQLite's only one) for their whole run: a few at a time.
  const atomicTurns = pLimit(ATOMIC_AT_ONCE);
  const handler: Handler = async (request) => {
    if (insideBatch.getStore()) throw validationError({ operations: 'nested-batch' });
    const batch = readBatchRequest(request.body);
    const claim = request.idempotency?.claim;
    if (!batch.atomic) {
      if (claim) await markWritten(ctx.database.kysely, claim);
      return { atomic: false, results: await runOperations(app, request, batch.operations, false) };
    }
    if (atomicTurns.pendingCount >= ATOMIC_QUEUE) throw new AppError('database-busy', { retryAfter: 1 });
    try {
      return await atomicTurns(() => inOneTransaction(ctx.database, async () => {
        const results = await runOperations(app, request, batch.operations, true);
        if (claim) await markWritten(ctx.database.kysely, claim);
        return { atomic: true, results };
      }));
    } catch (error) {
      if (!(error instanceof FailedOperation)) throw error;
      const failed = error.results[error.index]!;
      if (!transient(failed)) throw new AppError('batch-rolled-back', { index: error.index, results: error.results });
      throw new AppError('batch-interrupted', { index: error.index, results: error.results, retryAfter: Number(failed.headers['retry-after']) || 1 });
    }
  };
  addResourceRoute(app, {
    // Open to every valid key (the root's resource); each operation is checked, and counted, as a request of its own.
    resource: '', urls: ['/api/3/batch'], unmetered: true,
    methods: {
      POST: {
        handler,
        openapi: {
          summary: `Up to ${MAX_OPERATIONS} operations (method, path, body, headers) answered in order; atomic: all or nothing (docs/batches.md)`,
          body: {
            type: 'object', required: ['operations'],
            properties: {
              atomic: { type: 'boolean' },
              operations: {
                type: 'array', maxItems: MAX_OPERATIONS,
                items: {
                  type: 'object', required: ['method', 'path'],
                  properties: {
                    method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] }, path: { type: 'string', pattern: '^/api/3/' },
                    body: {}, headers: { type: 'object', properties: { 'Idempotency-Key': { type: 'string' }, 'If-Match': { type: 'string' }, 'If-None-Match': { type: 'string' } } },
                  },
                },
              },
            },
          },
          response: {
            type: 'object',
            properties: {
              atomic: { type: 'boolean' },
              results: { type: 'array', items: { type: 'object', properties: { status: { type: 'integer' }, headers: { type: 'object' }, body: {}, bodyBase64: { type: 'string' } } } },
            },
          },
        },
      },
    },
  });
}
