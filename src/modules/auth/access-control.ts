import { timestampOf } from '../../clock.ts';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { hashToken } from './auth-models.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { whenKnown, type MaybePromise } from '../../when-known.ts';
import type { SharedCache } from '../../db/shared-state.ts';

export const BAN_WINDOW_MS = 600_000;
export const BAN_THRESHOLD = 5;

type Permission = 'get' | 'post' | 'put' | 'delete';

interface CachedKey {
  id: number;
  digest: Buffer;
  fullaccess: boolean;
  profile: string;
  ratelimit: number | null;
  rules: Map<string, Record<Permission, boolean>>;
}

/** Who is calling: the global key (no id) or a stored key. */
export interface Caller {
  keyId: number | undefined;
  fullaccess: boolean;
  rules: Map<string, Record<Permission, boolean>> | undefined;
  /** The key's response profile; undefined for the global key (the settings decide). */
  profile: string | undefined;
  /** The key's own requests per minute (0: none), or null for the installation's; undefined for the global key. */
  ratelimit?: number | null;
}

const METHOD_PERMISSION: Readonly<Record<string, Permission | undefined>> = Object.assign(Object.create(null) as Record<string, Permission>, {
  GET: 'get',
  HEAD: 'get',
  POST: 'post',
  PUT: 'put',
  PATCH: 'put',
  DELETE: 'delete',
});

/**
 * Keys, access rules, the IP ban and key activity, served from memory.
 *
 * - Keys (by token digest) and rules are a shared cache (`ctx.shared`): reloaded after this
 *   instance commits a change to them, and when another instance's change moves the shared
 *   version, which the state tick polls every `STATE_REFRESH_MS`.
 * - Failed authentications are written to the database (every instance counts them) and
 *   mirrored in memory; the tick reloads the recent window so bans made elsewhere apply here.
 * - `lastactivity`/`lastip` are coalesced in memory and written by the tick: at most one write
 *   per key per tick, never on the request path.
 */
export class AccessControl {
  readonly #ctx: AppContext;
  readonly #keys: SharedCache<Map<string, CachedKey>>;
  readonly #instance = randomUUID();
  /** Failures recorded by this instance (exact, immediate) and by the others (as of the last tick). */
  #ownIncidents = new Map<string, number[]>();
  #otherIncidents = new Map<string, number[]>();
  #activity = new Map<number, { time: number; ip: string }>();
  #globalDigest: Buffer | undefined;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#globalDigest = ctx.config.apiKey ? hashToken(ctx.config.apiKey, 'buffer') : undefined;
    this.#keys = ctx.shared.cache('access', ['apikey', 'apiaccess'], () => this.#loadKeys());
  }

  /** One background round: incidents recorded by other instances, and the pending key activity. */
  async tick(): Promise<void> {
    await this.#loadIncidents();
    await this.flushActivity();
  }

  async #loadKeys(): Promise<Map<string, CachedKey>> {
    const db = this.#ctx.database.kysely;
    const { registry } = this.#ctx;
    const [keys, rules] = await Promise.all([
      db.selectFrom('api_keys').select(['id', 'apikey', 'fullaccess', 'enabled', 'profile', 'ratelimit']).execute(),
      db.selectFrom('api_access').select(['idapikey', 'resource', 'allowget', 'allowpost', 'allowput', 'allowdelete']).execute(),
    ]);
    const byId = new Map<number, CachedKey>();
    const byDigest = new Map<string, CachedKey>();
    for (const key of keys) {
      // A disabled key is treated exactly like an unknown one.
      if (!dbBoolean(key.enabled)) continue;
      const cached: CachedKey = {
        id: Number(key.id),
        digest: Buffer.from(String(key.apikey), 'hex'),
        fullaccess: dbBoolean(key.fullaccess),
        profile: String(key.profile ?? 'spec'),
        ratelimit: key.ratelimit === null || key.ratelimit === undefined ? null : Number(key.ratelimit),
        rules: new Map(),
      };
      byId.set(cached.id, cached);
      byDigest.set(String(key.apikey), cached);
    }
    for (const rule of rules) {
      // Rules may name the canonical resource or the reference's plural alias.
      const resource = registry.canonical(String(rule.resource));
      byId.get(Number(rule.idapikey))?.rules.set(resource, {
        get: dbBoolean(rule.allowget),
        post: dbBoolean(rule.allowpost),
        put: dbBoolean(rule.allowput),
        delete: dbBoolean(rule.allowdelete),
      });
    }
    return byDigest;
  }

  async #loadIncidents(): Promise<void> {
    const since = this.#ctx.clock.now() - BAN_WINDOW_MS;
    const rows = await this.#ctx.database.kysely
      .selectFrom('api_incidents')
      .select(['ip', 'time'])
      .where('time', '>', since)
      .where('instance', '<>', this.#instance)
      .execute();
    const next = new Map<string, number[]>();
    for (const row of rows) {
      const list = next.get(String(row.ip)) ?? [];
      list.push(Number(row.time));
      next.set(String(row.ip), list);
    }
    this.#otherIncidents = next;
    for (const [ip, list] of this.#ownIncidents) {
      const live = list.filter((time) => time > since);
      if (live.length) this.#ownIncidents.set(ip, live);
      else this.#ownIncidents.delete(ip);
    }
    // Old incidents are pruned now and then; they no longer count anyway.
    if (Math.random() < 0.05) {
      await this.#ctx.database.kysely.deleteFrom('api_incidents').where('time', '<', since).execute();
    }
  }

  /** Seconds until the address is no longer banned, or 0 when it is not banned. */
  banRemaining(ip: string): number {
    const own = this.#ownIncidents.get(ip);
    const other = this.#otherIncidents.get(ip);
    if ((own?.length ?? 0) + (other?.length ?? 0) < BAN_THRESHOLD) return 0; // the common case, no allocation
    const now = this.#ctx.clock.now();
    const recent = [...(own ?? []), ...(other ?? [])]
      .filter((time) => time > now - BAN_WINDOW_MS)
      .sort((a, b) => a - b);
    if (recent.length < BAN_THRESHOLD) return 0;
    // Banned until fewer than BAN_THRESHOLD failures remain in the window.
    const liftAt = recent[recent.length - BAN_THRESHOLD]! + BAN_WINDOW_MS;
    return Math.max(1, Math.ceil((liftAt - now) / 1000));
  }

  async recordFailure(ip: string): Promise<void> {
    const time = this.#ctx.clock.now();
    const list = this.#ownIncidents.get(ip) ?? [];
    list.push(time);
    this.#ownIncidents.set(ip, list);
    await this.#ctx.database.kysely.insertInto('api_incidents').values({ ip: ip.slice(0, 45), time, instance: this.#instance }).execute();
  }

  /**
   * The caller for a token, or undefined for a missing, unknown or disabled key: at once while the
   * keys are current (every request asks), else once they are loaded.
   */
  authenticate(token: string | undefined, ip: string): MaybePromise<Caller | undefined> {
    if (!token) return undefined;
    return whenKnown(this.#keys.current() ?? this.#keys.get(), (keys) => {
      const digest = hashToken(token, 'buffer');
      if (this.#globalDigest && timingSafeEqual(digest, this.#globalDigest)) {
        return { keyId: undefined, fullaccess: true, rules: undefined, profile: undefined };
      }
      const key = keys.get(digest.toString('hex'));
      if (!key || !timingSafeEqual(digest, key.digest)) return undefined;
      this.#activity.set(key.id, { time: this.#ctx.clock.now(), ip });
      return { keyId: key.id, fullaccess: key.fullaccess, rules: key.rules, profile: key.profile, ratelimit: key.ratelimit };
    });
  }

  /** Whether the caller may use `resource` with `method`; the root listing ('') is open to every key. */
  allows(caller: Caller, resource: string, method: string): boolean {
    if (caller.fullaccess || resource === '') return true;
    const permission = METHOD_PERMISSION[method];
    return Boolean(permission && caller.rules?.get(resource)?.[permission]);
  }

  /** Writes the coalesced `lastactivity`/`lastip` of keys used since the last flush. */
  async flushActivity(): Promise<void> {
    if (!this.#activity.size) return;
    const pending = this.#activity;
    this.#activity = new Map();
    const db = this.#ctx.database.kysely;
    for (const [id, { time, ip }] of pending) {
      await db.updateTable('api_keys').set({ lastactivity: timestampOf(time), lastip: ip.slice(0, 45) }).where('id', '=', id).execute();
    }
  }
}

/** 429 with Retry-After for a banned address. */
export function bannedError(seconds: number): AppError {
  return new AppError('ip-banned', { retryAfter: seconds });
}
