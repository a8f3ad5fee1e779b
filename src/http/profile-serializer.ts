import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { Model } from '../models/define-model.ts';
import { isLegacy } from './profile.ts';
import type { ResponseShape } from './resource-route.ts';

/**
 * The `facturascripts` profile's answers, in one place (docs/compatibility.md): writes wrapped as
 * `{"ok": <message>, "data": <record>}` with 200, dates as `DD-MM-YYYY` (and `DD-MM-YYYY HH:MM:SS`),
 * and the errors of model resources in the established system's shape and status. Handlers and
 * use cases never see the profile.
 */
const WRITE_MESSAGES = { create: 'Record updated correctly!', update: 'Record updated correctly!', delete: 'Record deleted correctly!' } as const;

type Row = Record<string, unknown>;

const isModel = (shape: ResponseShape): shape is Model => typeof (shape as Model).table === 'string' && typeof (shape as Model).fields === 'object';

function legacyDate(value: unknown, type: string): unknown {
  if (typeof value !== 'string') return value;
  if (type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value.slice(8, 10)}-${value.slice(5, 7)}-${value.slice(0, 4)}`;
  if (type === 'timestamp' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) return `${value.slice(8, 10)}-${value.slice(5, 7)}-${value.slice(0, 4)}${value.slice(10)}`;
  return value;
}

/** A record with its dates in the established system's format (a copy; other fields untouched). */
function formatRecord(model: Model, record: Row): Row {
  const out: Row = { ...record };
  for (const [name, field] of Object.entries(model.fields)) {
    if ((field.type === 'date' || field.type === 'timestamp') && name in out) out[name] = legacyDate(out[name], field.type);
  }
  return out;
}

/** Formats every record `shape` describes in `payload` (a record, a list of them, or an object of such). */
function formatByShape(shape: ResponseShape, payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object') return payload;
  if (Array.isArray(payload)) return payload.map((item) => formatByShape(shape, item));
  if (isModel(shape)) return formatRecord(shape, payload as Row);
  const out: Row = { ...(payload as Row) };
  for (const [key, inner] of Object.entries(shape)) if (key in out) out[key] = formatByShape(inner, out[key]);
  return out;
}

/** How a record of `model` is written for this request (identity but for the `facturascripts` profile). */
export function formatterFor(request: FastifyRequest, model: Model): (record: Row) => Row {
  return isLegacy(request) ? (record) => formatRecord(model, record) : (record) => record;
}

/** Reshapes successful answers for `facturascripts` keys; spec answers pass untouched. */
export function registerProfileSerializer(app: FastifyInstance): void {
  app.addHook('preSerialization', (request, reply, payload, done) => {
    if (!isLegacy(request) || reply.statusCode >= 400) return done(null, payload);
    const { write, shape } = request.routeOptions.config;
    let body = shape ? formatByShape(shape, payload) : payload;
    if (write === 'delete') body = { ok: WRITE_MESSAGES.delete, data: (body as { data?: unknown }).data };
    else if (write) {
      reply.code(200);
      body = { ok: WRITE_MESSAGES[write], data: body };
    }
    done(null, body);
  });
}

const FIELD_MESSAGES: Record<string, string> = { required: "can't be null", 'too-long': 'is too long', 'unknown-field': 'is not a column' };

/**
 * A model resource's error as the established system answers it, or undefined to keep ours: not
 * found 404, everything else the client did wrong 400, each `{"error": <text>}`.
 */
export function legacyModelError(error: AppError): { status: number; body: Row } | undefined {
  const fields = (error.details?.fields ?? {}) as Record<string, string>;
  switch (error.code) {
    case 'record-not-found':
      return { status: 404, body: { error: 'Record not found' } };
    case 'duplicate-record':
      return { status: 400, body: { error: 'Duplicated record' } };
    case 'no-data':
      return { status: 400, body: { error: 'Ningún dato recibido por formulario' } };
    case 'record-in-use':
      return { status: 400, body: { error: 'Error when deleting the record' } };
    case 'invalid-filter-field':
    case 'invalid-filter-operator':
    case 'invalid-sort-field':
      return { status: 400, body: { error: `api: fields not allowed: ${String(error.details?.parameter ?? '').replace(/^(filter|sort)\[|\]$/g, '')}` } };
    case 'validation-failed':
    case 'invalid-reference': {
      const messages = Object.entries(fields).map(([name, reason]) => `Field ${name} ${FIELD_MESSAGES[reason] ?? `is ${reason}`}`);
      return { status: 400, body: { error: ['An error occurred while saving the record', ...(messages.length ? messages : [error.code])].join(' - '), fields } };
    }
    default:
      return undefined;
  }
}
