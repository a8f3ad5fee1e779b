// The console's only way to the installation: the public API under /api/3, with the operator's
// key in sessionStorage (gone when the tab closes) sent as X-Auth-Token. No cookies: no CSRF.

const KEY_STORAGE = 'invoicing.admin.key';

export const session = {
  get key() {
    return sessionStorage.getItem(KEY_STORAGE);
  },
  signIn(key) {
    sessionStorage.setItem(KEY_STORAGE, key);
  },
  signOut() {
    sessionStorage.removeItem(KEY_STORAGE);
  },
};

/** An answer other than 2xx: its status, the error code (`message`, or `error` for the switch, keys and legacy shapes) and field reasons. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.message || body.error)) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && (body.message || body.error)) || String(status);
    this.fields = (body && body.fields) || {};
    this.body = body;
  }
}

async function bodyOf(response) {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A path under /api/3 from segments, each URL-encoded, and an optional query object (arrays repeat nothing: one value per name). */
export function apiPath(segments, query) {
  const path = '/api/3/' + [].concat(segments).map((segment) => encodeURIComponent(String(segment))).join('/');
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query || {})) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A random key (randomUUID needs a secure context; getRandomValues does not). */
function newKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * One API request. Resolves `{ data, total, response }` (`total` from X-Total-Count, NaN when
 * absent); rejects with ApiError for any non-2xx answer and signs out on 401 (the key was revoked).
 * A write carries an Idempotency-Key (docs/writes.md) and is sent once more with it when the
 * network failed before an answer came: the service then replays the first answer instead of
 * writing twice.
 */
export async function api(method, path, body, key = session.key, extraHeaders = {}) {
  const headers = { Accept: 'application/json', ...extraHeaders };
  if (key) headers['X-Auth-Token'] = key;
  // A form with files goes as multipart (the browser writes its boundary); anything else as JSON.
  const form = typeof FormData !== 'undefined' && body instanceof FormData;
  if (body !== undefined && !form) headers['Content-Type'] = 'application/json';
  const write = WRITES.has(method);
  if (write) headers['Idempotency-Key'] = newKey();
  const send = () => fetch(path, { method, headers, body: body === undefined ? undefined : form ? body : JSON.stringify(body), cache: 'no-store', credentials: 'omit' });
  const response = write ? await send().catch(() => send()) : await send();
  if (!response.ok) {
    const error = new ApiError(response.status, await bodyOf(response));
    if (response.status === 401 && key === session.key) onUnauthorised(error);
    throw error;
  }
  const contentType = response.headers.get('Content-Type') || '';
  const data = contentType.includes('json') ? await bodyOf(response) : await response.blob();
  return { data, total: Number(response.headers.get('X-Total-Count') ?? NaN), response };
}

let onUnauthorised = () => {};
/** What to do when the API refuses the stored key (the console goes back to sign-in). */
export function whenUnauthorised(handler) {
  onUnauthorised = handler;
}

/** The record of a write's answer, under either response profile (`{ok, data}` or the record itself). */
export const recordOf = (body) => (body && typeof body === 'object' && 'ok' in body && 'data' in body ? body.data : body);

/**
 * Every row of a list, page by page at the service's default page size (whatever MAX_LIST_LIMIT
 * is), following X-Total-Count; capped, since the console only ever lists small sets this way.
 */
export async function listAll(resource, query = {}, cap = 5000) {
  const rows = [];
  for (;;) {
    const { data, total } = await api('GET', apiPath(resource, { ...query, offset: rows.length }));
    rows.push(...data);
    if (!data.length || rows.length >= total || rows.length >= cap || !Number.isFinite(total)) return rows;
  }
}

let description;
/**
 * The OpenAPI description (GET /api/3/openapi, about 1 MB), read once per signed-in key: the
 * sign-in probe, the overview's version and the settings' schema share the one download.
 */
export function apiDescription() {
  const key = session.key;
  if (description?.key !== key) description = { key, promise: api('GET', apiPath('openapi')).then(({ data }) => data) };
  return description.promise;
}

/**
 * Whether the key may read a resource: one cheap request, 403 meaning no (menus follow the rules).
 * `importar` is written, never read: a dry run of no customers says whether the key may import.
 */
export async function canRead(resource) {
  try {
    if (resource === 'openapi') await apiDescription();
    else if (resource === 'importar') await api('POST', apiPath(['importar', 'cliente'], { dryrun: 1 }), []);
    else await api('GET', resource === 'events' ? apiPath('events', { latest: 1 }) : apiPath(resource, { limit: 1 }));
    return true;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 403 || error.status === 404)) return false;
    throw error;
  }
}

/** Saves a response body as a file the browser downloads (an export). */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file name a Content-Disposition header gives, else the fallback. */
export function fileNameOf(response, fallback) {
  const header = response.headers.get('Content-Disposition') || '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) return decodeURIComponent(star[1]);
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain ? plain[1] : fallback;
}

